import { randomUUID } from 'node:crypto';
import { useRedisLimiters } from './support/redis-limiters';
import type { Limiter, KeySubject } from '../src/limits';

const redis = useRedisLimiters({ threshold: 3, seconds: 30 });
const replica = () => redis.replica();

/** Two accepted requests, then refusals until the third rejection bans the key. */
async function getBanned(limiter: Limiter, subject: KeySubject) {
  const outcomes = [];
  for (let i = 0; i < 5; i++) outcomes.push((await limiter.consumeKey(subject)).outcome);
  return outcomes;
}

describe('ban', () => {
  it('when a key reaches the rejection threshold within a minute, then it is banned until the ban ends', async () => {
    const limiter = await replica();
    const subject = { accountId: randomUUID(), keyId: randomUUID(), quotas: { perMinute: 2, perDay: 1000 } };
    const before = Date.now();
    expect(await getBanned(limiter, subject)).toEqual(['allowed', 'allowed', 'limited', 'limited', 'banned']);
    const banned = await limiter.consumeKey(subject);
    expect(banned.outcome).toBe('banned');
    if (banned.outcome !== 'banned') return;
    expect(banned.bannedUntilMs).toBeGreaterThanOrEqual(before + 30_000 - 1_000);
    expect(banned.bannedUntilMs).toBeLessThanOrEqual(Date.now() + 30_000 + 1_000);
  });

  it('when the ban threshold is null, then it is the per-minute quota', async () => {
    const limiter = await redis.replica({ threshold: null, seconds: 30 });
    const subject = { accountId: randomUUID(), keyId: randomUUID(), quotas: { perMinute: 2, perDay: 1000 } };
    expect(await getBanned(limiter, subject)).toEqual(['allowed', 'allowed', 'limited', 'banned', 'banned']);
    await limiter.close();
  });

  it('when another key of the same account asks, then it is only limited, not banned', async () => {
    const limiter = await replica();
    const accountId = randomUUID();
    const quotas = { perMinute: 2, perDay: 1000 };
    await getBanned(limiter, { accountId, keyId: 'noisy', quotas });
    expect((await limiter.consumeKey({ accountId, keyId: 'quiet', quotas })).outcome).toBe('limited');
  });

  it('when one replica bans a key, then another replica refuses it as banned with the same end', async () => {
    const [a, b] = [await replica(), await replica()];
    const subject = { accountId: randomUUID(), keyId: randomUUID(), quotas: { perMinute: 2, perDay: 1000 } };
    await getBanned(a, subject);
    const [onA, onB] = [await a.consumeKey(subject), await b.consumeKey(subject)];
    expect(onA.outcome).toBe('banned');
    expect(onB.outcome).toBe('banned');
    if (onA.outcome !== 'banned' || onB.outcome !== 'banned') return;
    expect(Math.abs(onA.bannedUntilMs - onB.bannedUntilMs)).toBeLessThan(1_000);
  });

  it('when the threshold is reached on rejections answered locally, then one command bans the key for every replica', async () => {
    const [a, b] = [await replica(), await replica()];
    const subject = { accountId: randomUUID(), keyId: randomUUID(), quotas: { perMinute: 1, perDay: 1000 } };
    // The accepted request fills the window, so every refusal after it is answered from the local block.
    expect((await a.consumeKey(subject)).outcome).toBe('allowed');
    await redis.server.resetStats();
    expect((await a.consumeKey(subject)).outcome).toBe('limited');
    expect((await a.consumeKey(subject)).outcome).toBe('limited');
    expect((await a.consumeKey(subject)).outcome).toBe('banned');
    const stats = await redis.server.commandStats();
    // This connection's first use of the ban script goes out as EVAL (ioredis loads it), later ones as EVALSHA.
    expect((stats['evalsha'] ?? 0) + (stats['eval'] ?? 0)).toBe(1);
    expect(stats['set']).toBe(1);
    expect((await b.consumeKey(subject)).outcome).toBe('banned');
  });

  it('when the ban is lifted, then the key is judged by its windows again', async () => {
    const limiter = await replica();
    const subject = { accountId: randomUUID(), keyId: randomUUID(), quotas: { perMinute: 2, perDay: 1000 } };
    await getBanned(limiter, subject);
    await limiter.liftBan(subject);
    // The minute window is still full: no longer banned, but limited until it frees.
    expect((await limiter.consumeKey(subject)).outcome).toBe('limited');
    // A fresh window (here: a higher quota) lets it through.
    expect((await limiter.consumeKey({ ...subject, quotas: { perMinute: 10, perDay: 1000 } })).outcome).toBe('allowed');
  });

  it('when the ban is lifted on one replica, then a replica that never cached it sees it lifted', async () => {
    const [a, b] = [await replica(), await replica()];
    const subject = { accountId: randomUUID(), keyId: randomUUID(), quotas: { perMinute: 2, perDay: 1000 } };
    await getBanned(a, subject);
    await a.liftBan(subject);
    expect((await b.consumeKey({ ...subject, quotas: { perMinute: 10, perDay: 1000 } })).outcome).toBe('allowed');
  });

  it('when a replica cached the ban, then lifting it there too (idempotent) clears its local copy', async () => {
    const [a, b] = [await replica(), await replica()];
    const subject = { accountId: randomUUID(), keyId: randomUUID(), quotas: { perMinute: 2, perDay: 1000 } };
    await getBanned(a, subject);
    expect((await b.consumeKey(subject)).outcome).toBe('banned');
    await a.liftBan(subject);
    await b.liftBan(subject);
    expect((await b.consumeKey({ ...subject, quotas: { perMinute: 10, perDay: 1000 } })).outcome).toBe('allowed');
  });

  it('when a key is banned on one replica, then bannedUntil on another gives the same end, and null once lifted', async () => {
    const [a, b] = [await replica(), await replica()];
    const subject = { accountId: randomUUID(), keyId: randomUUID(), quotas: { perMinute: 2, perDay: 1000 } };
    expect(await b.bannedUntil(subject)).toBeNull();
    await getBanned(a, subject);
    const banned = await a.consumeKey(subject);
    if (banned.outcome !== 'banned') throw new Error(`expected a ban, got ${banned.outcome}`);
    const until = await b.bannedUntil(subject);
    expect(Math.abs((until ?? 0) - banned.bannedUntilMs)).toBeLessThan(1_000);
    await a.liftBan(subject);
    expect(await b.bannedUntil(subject)).toBeNull();
  });
});
