import pino from 'pino';
import type { Redis } from 'ioredis';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { createLimiter, RedisLimiter, type Limiter } from '../src/limits';
import { useRedis } from './support/redis';

const logger = pino({ level: 'silent' });
const ban = { threshold: null, seconds: 900 };
const server = useRedis();
let redis: Redis;
let other: Redis;
let counter = 0;
const freshIp = () => `198.51.100.${++counter}`;

beforeAll(async () => {
  redis = await server.connection();
  other = await server.connection();
});

describe.each([
  ['redis', () => createLimiter({ redis, logger, ban })],
  ['in-process', () => createLimiter({ logger, ban })],
] as const)('anonymous limit (%s)', (_kind, make) => {
  let limiter: Limiter;
  beforeEach(() => {
    limiter = make();
  });
  afterEach(() => limiter.close());

  it('when one IP goes over its per-minute limit, then it is refused by the minute window', async () => {
    const ip = freshIp();
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await limiter.consumeAnonymous(ip, 3)).outcome);
    expect(outcomes).toEqual(['allowed', 'allowed', 'allowed', 'limited']);
    const refused = await limiter.consumeAnonymous(ip, 3);
    expect(refused).toMatchObject({ outcome: 'limited', binding: 'minute' });
    if (refused.outcome !== 'limited') return;
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(refused.windows).toEqual([expect.objectContaining({ name: 'minute', limit: 3, remaining: 0, windowSeconds: 60 })]);
  });

  it('when two IPs send requests, then each has its own window', async () => {
    const [a, b] = [freshIp(), freshIp()];
    for (let i = 0; i < 3; i++) await limiter.consumeAnonymous(a, 3);
    expect((await limiter.consumeAnonymous(a, 3)).outcome).toBe('limited');
    const first = await limiter.consumeAnonymous(b, 3);
    expect(first.outcome).toBe('allowed');
    expect(first.windows[0]?.remaining).toBe(2);
  });
});

describe('anonymous limit across replicas', () => {
  it('when two replicas count the same IP, then they share one window', async () => {
    const [a, b] = [createLimiter({ redis, logger, ban }), createLimiter({ redis: other, logger, ban })];
    const ip = freshIp();
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).consumeAnonymous(ip, 6)));
    expect(outcomes.filter((d) => d.outcome === 'allowed')).toHaveLength(6);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('anonymous limit when the store fails', () => {
  // A value the store cannot increment makes rate-limiter-flexible reject with an Error, not a RateLimiterRes.
  const breakCounter = (ip: string) => server.server.client.set(`rl:anon:${ip}`, 'not-a-number', 'EX', 60);

  it('when rate-limiter-flexible rejects with a store Error, then the Redis limiter throws it instead of deciding', async () => {
    const ip = freshIp();
    await breakCounter(ip);
    const limiter = new RedisLimiter({ redis, ban });
    const failure = await limiter.consumeAnonymous(ip, 3).then(
      (decision) => decision,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(RateLimiterRes);
  });

  it('when rate-limiter-flexible rejects with a store Error, then the request is answered in-process, not refused', async () => {
    const ip = freshIp();
    await breakCounter(ip);
    const limiter = createLimiter({ redis, logger, ban });
    const decision = await limiter.consumeAnonymous(ip, 3);
    expect(decision.outcome).toBe('allowed');
    expect(limiter.degraded).toBe(true);
    await limiter.close();
  });
});
