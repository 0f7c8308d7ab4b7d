import type { Logger } from 'pino';
import type { RedisClient } from '../redis';
import { FailoverLimiter } from './failover-limiter';
import { MemoryLimiter } from './memory-limiter';
import { RedisLimiter } from './redis-limiter';
import type { BanPolicy, Limiter } from './types';

export interface CreateLimiterOptions {
  /** Shared Redis or Redis Cluster (from `connectRedis` or `connectCluster`). Absent: a purely in-process limiter. Never quit by the limiter. */
  redis?: RedisClient;
  logger: Logger;
  ban: BanPolicy;
  /** How long a request waits on Redis before its part of the store counts as down (`REDIS_TIMEOUT_MS`). */
  commandTimeoutMs?: number;
}

/**
 * The limiter the gateway uses: Redis (or a Redis Cluster) with an in-process fallback, per part of
 * the store, when a client is given; in-process only otherwise. `close()` stops the limiter's
 * timers; it never closes `redis`.
 */
export function createLimiter({ redis, logger, ban, commandTimeoutMs }: CreateLimiterOptions): Limiter {
  return redis ? withFallback(new RedisLimiter({ redis, ban, commandTimeoutMs }), { logger, ban }) : new MemoryLimiter(ban);
}

export interface FallbackOptions {
  logger: Logger;
  ban: BanPolicy;
  /** Told true when any part of the store falls back to in-process, false when all of it is back on Redis. */
  onModeChange?: (degraded: boolean) => void;
}

/** `primary` while each part of its store answers, an in-process limiter with the same ban policy for the parts that do not. */
export function withFallback(primary: RedisLimiter, { logger, ban, onModeChange }: FallbackOptions): FailoverLimiter {
  return new FailoverLimiter({ primary, fallback: new MemoryLimiter(ban), parts: primary.parts, logger, onModeChange });
}

export { RedisLimiter } from './redis-limiter';
export type * from './types';
