import { randomUUID } from 'node:crypto';
import { waitFor } from '../../test/helpers/ports';
import type { TestRedis } from '../../test/helpers/redis-server';
import type { Limiter } from '../src/limits';
import { SCRIPT_INNER_COMMANDS } from '../src/limits/script';
import { useRedisLimiters } from './support/redis-limiters';

const redisLimiters = useRedisLimiters({ threshold: 1000, seconds: 900 });
let server: TestRedis;
let limiter: Limiter;

/** What this file's own inspection sends (INFO, CONFIG RESETSTAT), not the limiter. */
const INSPECTION = new Set(['info', 'config', 'config|resetstat']);

async function clientStats(): Promise<Record<string, number>> {
  const stats = await server.commandStats();
  return Object.fromEntries(Object.entries(stats).filter(([name]) => !INSPECTION.has(name)));
}

beforeAll(async () => {
  server = redisLimiters.server;
  limiter = await redisLimiters.replica();
  // The first script call on a connection goes out as EVAL to load it; the hot path is what follows.
  // On a starved machine that first call can outlast the command timeout and send the limiter to
  // in-process counting until its next probe (seen in CI with two suites side by side): warm up until
  // it counts in Redis.
  const warmUp = { accountId: 'warm-up', keyId: 'warm-up', quotas: { perMinute: 1_000_000, perDay: 1_000_000 } };
  await waitFor(async () => (await limiter.consumeKey(warmUp)) !== undefined && limiter.mode === 'redis', 30_000, 'the limiter counting in Redis');
}, 60_000);

describe('hot path', () => {
  it('when N requests are accepted, then Redis receives exactly N EVALSHA and nothing else from the client', async () => {
    const subject = { accountId: randomUUID(), keyId: 'k', quotas: { perMinute: 1000, perDay: 10_000 } };
    const N = 25;
    await server.resetStats();
    for (let i = 0; i < N; i++) expect((await limiter.consumeKey(subject)).outcome).toBe('allowed');

    const stats = await clientStats();
    expect(stats['evalsha']).toBe(N);
    // Script-inner calls show up in commandstats too; these are exactly what N accepted script runs do
    // (the first creates the minute and today's counters with SET, the rest INCR them; GET reads both,
    // PTTL the minute and the ban), so the client sent nothing else.
    expect(stats).toEqual({ evalsha: N, time: N, get: 2 * N, pttl: 2 * N, set: 2, incr: 2 * (N - 1) });
    expect(Object.keys(stats).every((name) => name === 'evalsha' || (SCRIPT_INNER_COMMANDS as readonly string[]).includes(name))).toBe(true);
  });

  it('when an account is known to be over its limit, then further requests cost no Redis command until its reset', async () => {
    const subject = { accountId: randomUUID(), keyId: 'k', quotas: { perMinute: 3, perDay: 10_000 } };
    for (let i = 0; i < 3; i++) await limiter.consumeKey(subject);
    await server.resetStats();
    for (let i = 0; i < 50; i++) expect((await limiter.consumeKey(subject)).outcome).toBe('limited');
    expect(await clientStats()).toEqual({});
  });

  it('when an account was refused by Redis, then the local answer keeps the refusing window and a shrinking Retry-After', async () => {
    const subject = { accountId: randomUUID(), keyId: 'k', quotas: { perMinute: 1000, perDay: 2 } };
    for (let i = 0; i < 3; i++) await limiter.consumeKey(subject);
    await server.resetStats();
    const first = await limiter.consumeKey(subject);
    const later = await limiter.consumeKey(subject, Date.now() + 5_000);
    expect(await clientStats()).toEqual({});
    expect(first).toMatchObject({ outcome: 'limited', binding: 'day' });
    expect(later).toMatchObject({ outcome: 'limited', binding: 'day' });
    if (first.outcome !== 'limited' || later.outcome !== 'limited') return;
    expect(first.retryAfterMs - later.retryAfterMs).toBeGreaterThanOrEqual(4_900);
  });

  it('when an address is over its anonymous limit, then further refusals cost no Redis command, with the same headers, until its window resets', async () => {
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}-${randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await limiter.consumeAnonymous(ip, 3)).outcome).toBe('allowed');
    await server.resetStats();
    const refusals = [];
    for (let i = 0; i < 50; i++) refusals.push(await limiter.consumeAnonymous(ip, 3));
    expect(await clientStats()).toEqual({});
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ outcome: 'limited', binding: 'minute', windows: [expect.objectContaining({ name: 'minute', limit: 3, remaining: 0 })] });
      if (refusal.outcome === 'limited') expect(refusal.retryAfterMs).toBeGreaterThan(55_000);
    }
    // Another address is still counted in Redis.
    expect((await limiter.consumeAnonymous(`${ip}-other`, 3)).outcome).toBe('allowed');
    expect((await clientStats())['evalsha']).toBe(1);
  });

  it('when a window frees, then the account goes back to Redis', async () => {
    const subject = { accountId: randomUUID(), keyId: 'k', quotas: { perMinute: 1, perDay: 10_000 } };
    await limiter.consumeKey(subject);
    await server.resetStats();
    // Past the local block's end, the cache no longer answers: the script does (and Redis still refuses).
    expect((await limiter.consumeKey(subject, Date.now() + 61_000)).outcome).toBe('limited');
    expect((await clientStats())['evalsha']).toBe(1);
  });
});
