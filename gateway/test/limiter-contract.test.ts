import pino from 'pino';
import { RedisLimiter, withFallback } from '../src/limits';
import { MemoryLimiter } from '../src/limits/memory-limiter';
import { connectRedis } from '../src/redis';
import { limiterContract } from './limiter.contract';
import { useRedis } from './support/redis';

/** The Limiter contract on the in-process limiter, the Redis limiter, and the failover limiter with Redis up and with Redis down. */
const redis = useRedis();
const logger = pino({ level: 'silent' });
/** These tests count: a generous deadline keeps a loaded machine from falling back (the fallback has its own row). */
const COMMAND_TIMEOUT_MS = 2_000;

limiterContract('MemoryLimiter', { open: async (ban) => new MemoryLimiter(ban), clockDrivesWindows: true });

limiterContract('RedisLimiter', {
  open: async (ban) => new RedisLimiter({ redis: await redis.connection(), ban, commandTimeoutMs: COMMAND_TIMEOUT_MS }),
  clockDrivesWindows: false,
});

limiterContract('FailoverLimiter, Redis up', {
  open: async (ban) => withFallback(new RedisLimiter({ redis: await redis.connection(), ban, commandTimeoutMs: COMMAND_TIMEOUT_MS }), { logger, ban }),
  clockDrivesWindows: false,
});

limiterContract('FailoverLimiter, Redis down', {
  open: async (ban) => {
    // A connection that is gone (closed, so it never reconnects and leaves no timer behind): every
    // call falls back to the in-process limiter, whose windows follow the injected clock.
    const gone = await connectRedis(redis.url);
    gone.disconnect();
    return withFallback(new RedisLimiter({ redis: gone, ban }), { logger, ban });
  },
  clockDrivesWindows: true,
  sharedStoreDown: true,
});
