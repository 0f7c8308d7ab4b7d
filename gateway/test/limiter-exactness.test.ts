import { randomUUID } from 'node:crypto';
import { useRedisLimiters } from './support/redis-limiters';
import { createLimiter, type LimitDecision } from '../src/limits';

const redis = useRedisLimiters({ threshold: null, seconds: 900 });
const redisLimiter = () => redis.replica();

const outcomes = (decisions: LimitDecision[]) => ({
  allowed: decisions.filter((d) => d.outcome === 'allowed').length,
  limited: decisions.filter((d) => d.outcome === 'limited').length,
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
    const limiter = createLimiter({ logger: redis.logger, ban: redis.ban });
    const accountId = randomUUID();
    const decisions = await Promise.all(Array.from({ length: 100 }, () => limiter.consumeKey({ accountId, keyId: 'k', quotas })));
    expect(outcomes(decisions)).toEqual({ allowed: 60, limited: 40 });
    expect(limiter.mode).toBe('in-process');
    await limiter.close();
  });
});
