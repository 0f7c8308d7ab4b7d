import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Redis } from 'ioredis';
import { TestRedis } from '../../test/helpers/redis-server';
import { connectRedis } from '../src/redis';
import { createLimiter, type Limiter, type LimitDecision } from '../src/limits';

const logger = pino({ level: 'silent' });
const ban = { threshold: null, seconds: 900 };
let server: TestRedis;
const clients: Redis[] = [];
const limiters: Limiter[] = [];

async function redisLimiter(): Promise<Limiter> {
  // A short wait: the server is up, and connectRedis leaves its wait timer running.
  const redis = await connectRedis(server.url, 300);
  clients.push(redis);
  const limiter = createLimiter({ redis, logger, ban });
  limiters.push(limiter);
  return limiter;
}

const outcomes = (decisions: LimitDecision[]) => ({
  allowed: decisions.filter((d) => d.outcome === 'allowed').length,
  limited: decisions.filter((d) => d.outcome === 'limited').length,
});

beforeAll(async () => {
  server = await TestRedis.start();
});

afterAll(async () => {
  for (const limiter of limiters) await limiter.close();
  for (const client of clients) client.disconnect();
  await server.stop();
});

describe('exactness', () => {
  const quotas = { perMinute: 60, perDay: 1000 };

  it('when 100 requests of a 60/min account arrive at once, then exactly 60 are allowed', async () => {
    const limiter = await redisLimiter();
    const accountId = randomUUID();
    const decisions = await Promise.all(Array.from({ length: 100 }, (_, i) => limiter.consumeKey({ accountId, keyId: `k${i % 3}`, quotas })));
    expect(outcomes(decisions)).toEqual({ allowed: 60, limited: 40 });
    expect(limiter.degraded).toBe(false);
    const usage = await limiter.usage(accountId, quotas);
    expect(usage.map((w) => [w.name, w.remaining])).toEqual([
      ['minute', 0],
      ['day', 940],
    ]);
  });

  it('when two replicas on separate connections share one Redis, then exactly 60 are allowed in total', async () => {
    const [a, b] = [await redisLimiter(), await redisLimiter()];
    const accountId = randomUUID();
    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).consumeKey({ accountId, keyId: `k${i % 4}`, quotas })),
    );
    expect(outcomes(decisions)).toEqual({ allowed: 60, limited: 40 });
    expect(a.degraded || b.degraded).toBe(false);
  });

  it('when the limiter is in-process, then exactly 60 of 100 concurrent requests are allowed', async () => {
    const limiter = createLimiter({ logger, ban });
    const accountId = randomUUID();
    const decisions = await Promise.all(Array.from({ length: 100 }, () => limiter.consumeKey({ accountId, keyId: 'k', quotas })));
    expect(outcomes(decisions)).toEqual({ allowed: 60, limited: 40 });
    expect(limiter.mode).toBe('in-process');
    await limiter.close();
  });
});
