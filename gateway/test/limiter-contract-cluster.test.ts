import pino from 'pino';
import { RedisLimiter, withFallback } from '../src/limits';
import { limiterContract } from './limiter.contract';
import { useRedisCluster } from './support/redis';

/**
 * The Limiter contract on a real three-master Redis Cluster: the Redis limiter, and the failover
 * limiter the gateway builds on it. The fixture disconnects the connections (at once, no
 * reconnection) before it stops the cluster; this file closed them with QUIT, which waits for each
 * master's answer, and with two suites side by side it once kept a timer past the handle guard's 30 s.
 */
const cluster = useRedisCluster();
const logger = pino({ level: 'silent' });
const COMMAND_TIMEOUT_MS = 2_000;

limiterContract('RedisLimiter on Redis Cluster', {
  open: async (ban) => new RedisLimiter({ redis: await cluster.connection(), ban, commandTimeoutMs: COMMAND_TIMEOUT_MS }),
  clockDrivesWindows: false,
});

limiterContract('FailoverLimiter on Redis Cluster', {
  open: async (ban) => withFallback(new RedisLimiter({ redis: await cluster.connection(), ban, commandTimeoutMs: COMMAND_TIMEOUT_MS }), { logger, ban }),
  clockDrivesWindows: false,
});
