import { randomUUID } from 'node:crypto';
import { createLimiter, type Limiter } from '../src/limits';
import { useRedisLimiters } from './support/redis-limiters';

const redisLimiters = useRedisLimiters({ threshold: 1000, seconds: 900 });
let limiters: Record<'redis' | 'in-process', Limiter>;

beforeAll(async () => {
  const { logger, ban, redis } = redisLimiters;
  limiters = { redis: await redisLimiters.replica(), 'in-process': redis.closeAfter(createLimiter({ logger, ban })) };
});

const remaining = async (limiter: Limiter, accountId: string, quotas: { perMinute: number; perDay: number }) =>
  Object.fromEntries((await limiter.usage(accountId, quotas)).map((w) => [w.name, w.remaining]));

describe.each(['redis', 'in-process'] as const)('only accepted requests count (%s)', (kind) => {
  it('when the minute window refuses requests, then the day count does not move', async () => {
    const limiter = limiters[kind];
    const accountId = randomUUID();
    const quotas = { perMinute: 3, perDay: 100 };
    for (let i = 0; i < 3; i++) expect((await limiter.consumeKey({ accountId, keyId: 'k', quotas })).outcome).toBe('allowed');
    for (let i = 0; i < 5; i++) {
      // Without the local block cache, every refusal goes through the script itself.
      limiter.forgetAccount(accountId);
      expect(await limiter.consumeKey({ accountId, keyId: 'k', quotas })).toMatchObject({ outcome: 'limited', binding: 'minute' });
    }
    expect(await remaining(limiter, accountId, quotas)).toEqual({ minute: 0, day: 97 });
  });

  it('when the day window refuses requests, then the minute count does not move', async () => {
    const limiter = limiters[kind];
    const accountId = randomUUID();
    const quotas = { perMinute: 100, perDay: 2 };
    for (let i = 0; i < 2; i++) expect((await limiter.consumeKey({ accountId, keyId: 'k', quotas })).outcome).toBe('allowed');
    for (let i = 0; i < 5; i++) {
      limiter.forgetAccount(accountId);
      expect(await limiter.consumeKey({ accountId, keyId: 'k', quotas })).toMatchObject({ outcome: 'limited', binding: 'day' });
    }
    expect(await remaining(limiter, accountId, quotas)).toEqual({ minute: 98, day: 0 });
  });

  it('when the key is banned, then its requests count in neither window', async () => {
    const strict = { threshold: 2, seconds: 60 };
    const limiter = kind === 'redis' ? await redisLimiters.replica(strict) : redisLimiters.redis.closeAfter(createLimiter({ logger: redisLimiters.logger, ban: strict }));
    const accountId = randomUUID();
    const quotas = { perMinute: 1, perDay: 100 };
    await limiter.consumeKey({ accountId, keyId: 'banned', quotas });
    await limiter.consumeKey({ accountId, keyId: 'banned', quotas });
    expect((await limiter.consumeKey({ accountId, keyId: 'banned', quotas })).outcome).toBe('banned');
    for (let i = 0; i < 5; i++) expect((await limiter.consumeKey({ accountId, keyId: 'banned', quotas })).outcome).toBe('banned');
    expect(await remaining(limiter, accountId, quotas)).toEqual({ minute: 0, day: 99 });
  });
});
