import { randomUUID } from 'node:crypto';
import { useRedisLimiters } from './support/redis-limiters';
import { createLimiter, type LimitDecision } from '../src/limits';

const redis = useRedisLimiters({ threshold: null, seconds: 900 });
const redisLimiter = () => redis.replica();

const outcomes = (decisions: LimitDecision[]) => ({
  allowed: decisions.filter((d) => d.outcome === 'allowed').length,
  limited: decisions.filter((d) => d.outcome === 'limited').length,
});

/** The minute window's remaining count each accepted request was told, in ascending order. */
const minuteRemainingOfAccepted = (decisions: LimitDecision[]) =>
  decisions
    .filter((d) => d.outcome === 'allowed')
    .map((d) => d.windows.find((w) => w.name === 'minute')!.remaining)
    .sort((a, b) => a - b);
const eachUnitOnce = Array.from({ length: 60 }, (_, i) => i);

describe('exactness', () => {
  const quotas = { perMinute: 60, perDay: 1000 };

  it('when 100 requests of a 60/min account arrive at once, then exactly 60 are allowed', async () => {
    const limiter = await redisLimiter();
    const accountId = randomUUID();
    const decisions = await Promise.all(Array.from({ length: 100 }, (_, i) => limiter.consumeKey({ accountId, keyId: `k${i % 3}`, quotas })));
    expect(outcomes(decisions)).toEqual({ allowed: 60, limited: 40 });
    expect(limiter.degraded).toBe(false);
    // Every accepted request took its own unit: the remaining counts are 59..0, each exactly once.
    expect(minuteRemainingOfAccepted(decisions)).toEqual(eachUnitOnce);
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
    expect(minuteRemainingOfAccepted(decisions)).toEqual(eachUnitOnce);
    // Both replicas really took part.
    expect([0, 1].map((replica) => decisions.filter((d, i) => i % 2 === replica && d.outcome === 'allowed').length).every((n) => n > 0)).toBe(true);
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
