import pino from 'pino';
import type { Redis } from 'ioredis';
import { TestRedis } from '../../../test/helpers/redis-server';
import { connectRedis } from '../../src/redis';
import { createLimiter, type BanPolicy, type Limiter } from '../../src/limits';

/**
 * A real redis-server for one test file, and Redis-backed limiters on separate connections
 * ("replicas"), all closed after the file. Call at the top level of a test file.
 */
export function useRedisLimiters(ban: BanPolicy) {
  const logger = pino({ level: 'silent' });
  const clients: Redis[] = [];
  const limiters: Limiter[] = [];
  let server: TestRedis | undefined;

  beforeAll(async () => {
    server = await TestRedis.start();
  });
  afterAll(async () => {
    for (const limiter of limiters) await limiter.close();
    for (const client of clients) client.disconnect();
    await server?.stop();
  });

  return {
    logger,
    ban,
    get server(): TestRedis {
      if (!server) throw new Error('the Redis server starts in beforeAll');
      return server;
    },
    /** A connection of its own to the server, closed after the file (e.g. for a limiter class used directly). */
    async connection(): Promise<Redis> {
      const redis = await connectRedis(this.server.url, 300);
      clients.push(redis);
      return redis;
    },
    /** A limiter with a connection of its own, as another gateway replica would have. */
    async replica(policy: BanPolicy = ban): Promise<Limiter> {
      const redis = await this.connection();
      const limiter = createLimiter({ redis, logger, ban: policy });
      limiters.push(limiter);
      return limiter;
    },
  };
}
