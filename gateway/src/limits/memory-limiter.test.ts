import { MemoryLimiter } from './memory-limiter';
import type { KeySubject } from './types';

const T0 = Date.UTC(2031, 2, 10, 12, 0, 0);
const subject = (perMinute: number, perDay: number, keyId = 'k1'): KeySubject => ({ accountId: 'a1', keyId, quotas: { perMinute, perDay } });

/** What only the in-process limiter shows; the rules every limiter shares are in gateway/test/limiter.contract.ts. */
describe('MemoryLimiter', () => {
  it('when requests are accepted over several UTC days, then the history gives each day its count, refused ones excluded', async () => {
    const limiter = new MemoryLimiter({ threshold: 100, seconds: 900 });
    const DAY = 86_400_000;
    for (let i = 0; i < 3; i++) await limiter.consumeKey(subject(1000, 2), T0 - 2 * DAY + i * 61_000);
    for (let i = 0; i < 2; i++) await limiter.consumeKey(subject(1000, 5), T0 + i);
    expect(await limiter.history('a1', 4, T0)).toEqual([
      { day: '2031-03-07', accepted: 0 },
      { day: '2031-03-08', accepted: 2 },
      { day: '2031-03-09', accepted: 0 },
      { day: '2031-03-10', accepted: 2 },
    ]);
    expect(await limiter.history('someone-else', 2, T0)).toEqual([
      { day: '2031-03-09', accepted: 0 },
      { day: '2031-03-10', accepted: 0 },
    ]);
  });

  it('when more days are asked for than are kept, then only the kept 35 days come back', async () => {
    const limiter = new MemoryLimiter({ threshold: 100, seconds: 900 });
    expect(await limiter.history('a1', 400, T0)).toHaveLength(35);
  });

  it('when a key keeps sending while refused, then it is banned at the threshold and nothing counts while banned', async () => {
    const limiter = new MemoryLimiter({ threshold: 3, seconds: 10 });
    await limiter.consumeKey(subject(1, 100), T0);
    expect((await limiter.consumeKey(subject(1, 100), T0 + 1)).outcome).toBe('limited');
    expect((await limiter.consumeKey(subject(1, 100), T0 + 2)).outcome).toBe('limited');
    expect(await limiter.consumeKey(subject(1, 100), T0 + 3)).toMatchObject({ outcome: 'banned', bannedUntilMs: T0 + 3 + 10_000 });
    expect((await limiter.consumeKey(subject(1, 100, 'k2'), T0 + 4)).outcome).toBe('limited');
    expect((await limiter.consumeKey(subject(1, 100), T0 + 61_000)).outcome).toBe('allowed');
    const usage = await limiter.usage('a1', { perMinute: 1, perDay: 100 }, T0 + 61_000);
    expect(usage.find((w) => w.name === 'day')?.remaining).toBe(98);
  });

  it('when a key is banned, then bannedUntil gives the end until it passes or the ban is lifted; other keys read null', async () => {
    const limiter = new MemoryLimiter({ threshold: 1, seconds: 10 });
    const ref = { accountId: 'a1', keyId: 'k1' };
    expect(await limiter.bannedUntil(ref, T0)).toBeNull();
    await limiter.consumeKey(subject(1, 100), T0);
    await limiter.consumeKey(subject(1, 100), T0 + 1);
    expect(await limiter.bannedUntil(ref, T0 + 2)).toBe(T0 + 1 + 10_000);
    expect(await limiter.bannedUntil({ accountId: 'a1', keyId: 'k2' }, T0 + 2)).toBeNull();
    expect(await limiter.bannedUntil(ref, T0 + 1 + 10_000)).toBeNull();
    await limiter.consumeKey(subject(1, 100), T0 + 100_000);
    await limiter.consumeKey(subject(1, 100), T0 + 100_001);
    await limiter.liftBan(ref);
    expect(await limiter.bannedUntil(ref, T0 + 100_002)).toBeNull();
  });
});
