import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import { withDeadline } from '../store-errors';
import { FailoverLimiter } from './failover-limiter';
import { MemoryLimiter } from './memory-limiter';
import { DEFAULT_COMMAND_TIMEOUT_MS, RedisLimiter } from './redis-limiter';
import type { BanPolicy, Limiter } from './types';

export interface CreateLimiterOptions {
  /** Shared Redis (e.g. from `connectRedis`). Absent: a purely in-process limiter. Never quit by the limiter. */
  redis?: Redis;
  logger: Logger;
  ban: BanPolicy;
  /** Called with true when the limiter falls back to in-process, false when it is back on Redis. */
  onModeChange?: (degraded: boolean) => void;
  keyPrefix?: string;
  /** Longest a request waits on Redis (default 250 ms). */
  commandTimeoutMs?: number;
  /** How often a degraded limiter checks whether Redis is back (default 500 ms). */
  probeIntervalMs?: number;
  localCacheMaxEntries?: number;
}

/**
 * The limiter the gateway uses: Redis with an in-process fallback when a client is given,
 * in-process only otherwise. `close()` stops the limiter's timers; it never closes `redis`.
 */
export function createLimiter(options: CreateLimiterOptions): Limiter {
  return options.redis ? failover(options.redis, options) : new MemoryLimiter(options.ban);
}

function failover(redis: Redis, options: CreateLimiterOptions): Limiter {
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  return new FailoverLimiter({
    primary: new RedisLimiter({ redis, ban: options.ban, keyPrefix: options.keyPrefix, commandTimeoutMs: timeoutMs, localCacheMaxEntries: options.localCacheMaxEntries }),
    fallback: new MemoryLimiter(options.ban),
    // A PING that answers late counts as down: a slow Redis must not get the traffic back.
    probe: () => withDeadline(redis.ping(), timeoutMs, 'redis ping'),
    logger: options.logger,
    probeIntervalMs: options.probeIntervalMs,
    onModeChange: options.onModeChange,
  });
}

export { RedisLimiter } from './redis-limiter';
export type * from './types';
