import { randomUUID } from 'node:crypto';
import type { TestRedis } from '../../test/helpers/redis-server';
import { RedisLimiter, type Limiter } from '../src/limits';
import { DAY_MS, utcDate, utcDay } from '../src/limits/windows';
import { useRedisLimiters } from './support/redis-limiters';

/**
 * The day window on Redis is one counter per UTC date, kept 35 days: today's window and the
 * account's daily history come from the same keys, so the history costs nothing on the request path.
 */
const ban = { threshold: 1000, seconds: 900 };
const redisLimiters = useRedisLimiters(ban);
let server: TestRedis;
let limiter: Limiter;

beforeAll(async () => {
  server = redisLimiters.server;
  limiter = await redisLimiters.replica();
});

afterEach(() => {
  jest.restoreAllMocks();
});

const dayKey = (accountId: string, day: number) => `rl:{${accountId}}:day:${day}`;

async function redisToday(): Promise<{ day: number; nowMs: number }> {
  const [seconds, micros] = (await server.client.time()).map(Number);
  const nowMs = seconds! * 1000 + Math.floor(micros! / 1000);
  return { day: utcDay(nowMs), nowMs };
}

describe('day window kept per UTC date', () => {
  it("when requests are accepted, then today's count is a key of its own that expires 35 days after its day began", async () => {
    const accountId = randomUUID();
    for (let i = 0; i < 3; i++) await limiter.consumeKey({ accountId, keyId: 'k', quotas: { perMinute: 100, perDay: 100 } });
    const { day, nowMs } = await redisToday();
    expect(await server.client.get(dayKey(accountId, day))).toBe('3');
    const expectedTtl = (day + 35) * DAY_MS - nowMs;
    expect(Math.abs((await server.client.pttl(dayKey(accountId, day))) - expectedTtl)).toBeLessThan(2_000);
  });

  it("when yesterday's counter is full, then today starts from zero: the day is Redis's date, not a TTL", async () => {
    const accountId = randomUUID();
    const { day } = await redisToday();
    await server.client.set(dayKey(accountId, day - 1), '1000');
    const decision = await limiter.consumeKey({ accountId, keyId: 'k', quotas: { perMinute: 100, perDay: 1000 } });
    expect(decision.outcome).toBe('allowed');
    expect(decision.windows.find((w) => w.name === 'day')?.remaining).toBe(999);
  });

  it('when history is asked, then the last days come oldest first from one MGET, capped at 35 days', async () => {
    const accountId = randomUUID();
    const { day } = await redisToday();
    for (let back = 1; back <= 40; back++) await server.client.set(dayKey(accountId, day - back), String(back));
    for (let i = 0; i < 2; i++) await limiter.consumeKey({ accountId, keyId: 'k', quotas: { perMinute: 100, perDay: 100 } });

    await server.resetStats();
    const history = await limiter.history(accountId, 40, day * DAY_MS + 1_000);
    const stats = await server.commandStats();
    expect(stats['mget']).toBe(1);
    expect(Object.keys(stats).filter((name) => !['mget', 'info', 'config|resetstat'].includes(name))).toEqual([]);

    expect(history).toHaveLength(35);
    expect(history[0]).toEqual({ day: utcDate(day - 34), accepted: 34 });
    expect(history[33]).toEqual({ day: utcDate(day - 1), accepted: 1 });
    expect(history[34]).toEqual({ day: utcDate(day), accepted: 2 });
    expect(await limiter.history(accountId, 3, day * DAY_MS + 1_000)).toEqual([
      { day: utcDate(day - 2), accepted: 2 },
      { day: utcDate(day - 1), accepted: 1 },
      { day: utcDate(day), accepted: 2 },
    ]);
    expect(await limiter.history(accountId, 0)).toEqual([]);
    expect(await limiter.history(randomUUID(), 2, day * DAY_MS + 1_000)).toEqual([
      { day: utcDate(day - 1), accepted: 0 },
      { day: utcDate(day), accepted: 0 },
    ]);
  });

  it("when the gateway's clock is a day off, then requests still count on Redis's date", async () => {
    const accountId = randomUUID();
    const realNow = Date.now.bind(Date);
    for (const offset of [DAY_MS, -DAY_MS]) {
      jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
      await limiter.consumeKey({ accountId, keyId: 'k', quotas: { perMinute: 100, perDay: 100 } });
      jest.restoreAllMocks();
    }
    const { day } = await redisToday();
    expect(await server.client.get(dayKey(accountId, day))).toBe('2');
  });

  it("when the gateway's clock is more than a day off, then the script refuses (a store failure, never a decision)", async () => {
    const direct = new RedisLimiter({ redis: await redisLimiters.connection(), ban });
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 3 * DAY_MS);
    await expect(direct.consumeKey({ accountId: randomUUID(), keyId: 'k', quotas: { perMinute: 1, perDay: 1 } })).rejects.toThrow(/more than a day away from Redis TIME/);
  });
});
