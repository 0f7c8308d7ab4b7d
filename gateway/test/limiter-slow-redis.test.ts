import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Redis } from 'ioredis';
import { waitFor } from '../../test/helpers/ports';
import { createLimiter } from '../src/limits';
import { useRedis } from './support/redis';

const server = useRedis();
let redis: Redis;

beforeAll(async () => {
  redis = await server.connection();
});

describe('slow Redis', () => {
  it('when Redis is connected but does not answer, then requests are answered in-process within the deadline and Redis takes over once it answers again', async () => {
    const limiter = createLimiter({ redis, logger: pino({ level: 'silent' }), ban: { threshold: null, seconds: 900 } });
    const subject = { accountId: randomUUID(), keyId: 'k', quotas: { perMinute: 100, perDay: 1000 } };
    expect((await limiter.consumeKey(subject)).outcome).toBe('allowed');

    // The connection stays open; Redis just holds every client's commands for 4 s.
    await server.server.client.call('CLIENT', 'PAUSE', '4000', 'ALL');
    const durations: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      expect((await limiter.consumeKey(subject)).outcome).toBe('allowed');
      durations.push(performance.now() - started);
    }
    expect(limiter.degraded).toBe(true);
    // None waited out the pause: each ended at the 250 ms deadline or sooner (half the pause leaves a
    // loaded machine all the room it needs).
    expect(Math.max(...durations)).toBeLessThan(2_000);

    await waitFor(() => !limiter.degraded, 15_000, 'the limiter to return to Redis');
    expect(limiter.mode).toBe('redis');
    await limiter.close();
  }, 30_000);
});
