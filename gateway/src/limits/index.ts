import type { Logger } from 'pino';
import type { RedisClient } from '../redis';
import { FailoverLimiter } from './failover-limiter';
import { MemoryLimiter } from './memory-limiter';
import { DEFAULT_COMMAND_TIMEOUT_MS, RedisLimiter } from './redis-limiter';
import type { BanPolicy, Limiter } from './types';

export interface CreateLimiterOptions {
  /** Shared Redis or Redis Cluster (from `connectRedis` or `connectCluster`). Absent: a purely in-process limiter. Never quit by the limiter. */
  redis?: RedisClient;
  logger: Logger;
  ban: BanPolicy;
  /** Called with true when the limiter falls back to in-process (for any part of the store), false when all of it is back on Redis. */
  onModeChange?: (degraded: boolean) => void;
  keyPrefix?: string;
  /** Longest a request waits on Redis (default 250 ms). */
  commandTimeoutMs?: number;
  /** How often a degraded limiter checks whether each failed part of Redis is back (default 500 ms). */
  probeIntervalMs?: number;
  localCacheMaxEntries?: number;
}

/**
 * The limiter the gateway uses: Redis (or a Redis Cluster) with an in-process fallback, per part of
 * the store, when a client is given; in-process only otherwise. `close()` stops the limiter's
 * timers; it never closes `redis`.
 */
export function createLimiter(options: CreateLimiterOptions): Limiter {
  return options.redis ? failover(options.redis, options) : new MemoryLimiter(options.ban);
}

function failover(redis: RedisClient, options: CreateLimiterOptions): Limiter {
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const primary = new RedisLimiter({ redis, ban: options.ban, keyPrefix: options.keyPrefix, commandTimeoutMs: timeoutMs, localCacheMaxEntries: options.localCacheMaxEntries });
  return new FailoverLimiter({
    primary,
    fallback: new MemoryLimiter(options.ban),
    parts: primary.parts,
    logger: options.logger,
    probeIntervalMs: options.probeIntervalMs,
    onModeChange: options.onModeChange,
  });
}

export { RedisLimiter } from './redis-limiter';
export type * from './types';
