import { randomUUID } from 'node:crypto';
import type { TestRedis } from '../../test/helpers/redis-server';
import type { Limiter } from '../src/limits';
import { useRedisLimiters } from './support/redis-limiters';

const redisLimiters = useRedisLimiters({ threshold: 1000, seconds: 900 });
let server: TestRedis;
let limiter: Limiter;

beforeAll(async () => {
  server = redisLimiters.server;
  limiter = await redisLimiters.replica();
});

describe('quota change', () => {
  it('when an account that is refused gets a higher quota, then its next request is judged by the new numbers', async () => {
    const accountId = randomUUID();
    const free = { perMinute: 2, perDay: 1000 };
    await limiter.consumeKey({ accountId, keyId: 'k', quotas: free });
    await limiter.consumeKey({ accountId, keyId: 'k', quotas: free });
    expect((await limiter.consumeKey({ accountId, keyId: 'k', quotas: free })).outcome).toBe('limited');

    const pro = { perMinute: 5, perDay: 1000 };
    const next = await limiter.consumeKey({ accountId, keyId: 'k', quotas: pro });
    expect(next.outcome).toBe('allowed');
    expect(next.windows.find((w) => w.name === 'minute')).toMatchObject({ limit: 5, remaining: 2 });
  });

  it('when an account gets a lower quota than it has used, then its next request is refused', async () => {
    const accountId = randomUUID();
    const pro = { perMinute: 10, perDay: 1000 };
    for (let i = 0; i < 4; i++) await limiter.consumeKey({ accountId, keyId: 'k', quotas: pro });
    const next = await limiter.consumeKey({ accountId, keyId: 'k', quotas: { perMinute: 3, perDay: 1000 } });
    expect(next).toMatchObject({ outcome: 'limited', binding: 'minute' });
  });

  it('when forgetAccount is called, then the local block is dropped and the next request asks Redis', async () => {
    const accountId = randomUUID();
    const quotas = { perMinute: 1, perDay: 1000 };
    await limiter.consumeKey({ accountId, keyId: 'k', quotas });
    await server.resetStats();
    expect((await limiter.consumeKey({ accountId, keyId: 'k', quotas })).outcome).toBe('limited');
    expect((await server.commandStats())['evalsha'] ?? 0).toBe(0);

    limiter.forgetAccount(accountId);
    expect((await limiter.consumeKey({ accountId, keyId: 'k', quotas })).outcome).toBe('limited');
    expect((await server.commandStats())['evalsha']).toBe(1);
  });
});
