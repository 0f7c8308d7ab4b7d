import pino from 'pino';
import { RedisLimiter, withFallback, type BanPolicy, type Limiter } from '../../src/limits';
import { useRedis } from './redis';

/**
 * The Redis fixture (`useRedis`) and Redis-backed limiters on separate connections ("replicas"),
 * all closed after the file. Call at the top level of a test file.
 */
export function useRedisLimiters(ban: BanPolicy) {
  const logger = pino({ level: 'silent' });
  const redis = useRedis();

  return {
    logger,
    ban,
    redis,
    get server() {
      return redis.server;
    },
    /** A connection of its own to the server, closed after the file (e.g. for a limiter class used directly). */
    connection: () => redis.connection(),
    /**
     * A limiter with a connection of its own, as another gateway replica would have. These tests
     * count: a generous command timeout (10 s; 2 s was once exceeded in two suites side by side),
     * on the limiter and on its connection (ioredis's own, 1 s as the gateway sets it), and a
     * generous wait for the connection to be ready (the fixture's 300 ms was once exceeded too:
     * every count of a file then went to the fallback) keep a starved machine from falling back
     * to in-process counting (the 250 ms default and the fallback are tested where Redis fails).
     */
    async replica(policy: BanPolicy = ban): Promise<Limiter> {
      const connection = await redis.connection(10_000);
      connection.options.commandTimeout = 10_000; // read by ioredis as each command is sent
      return redis.closeAfter(withFallback(new RedisLimiter({ redis: connection, ban: policy, commandTimeoutMs: 10_000 }), { logger, ban: policy }));
    },
  };
}
