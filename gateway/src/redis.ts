import Redis, { type RedisOptions } from 'ioredis';

/**
 * Redis connections that never make a request wait long: no offline queue (a command
 * fails at once while disconnected), a command timeout, one retry, and endless
 * background reconnection so the gateway returns to Redis by itself.
 *
 * The command timeout is only a backstop (e.g. for ops calls): the request path is bounded by its
 * own deadlines (`withDeadline`: 250 ms for the limiter, 500 ms for a key lookup), which tell a late
 * reply from a late event loop. ioredis's timer cannot: at 250 ms it failed healthy Redis calls
 * whenever the gateway was busy for a quarter of a second, and every such failure sends the limiter
 * to in-process counting, which lets an account past its quota.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

const requestPathOptions: RedisOptions = {
  enableOfflineQueue: false,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  maxRetriesPerRequest: 1,
  connectTimeout: 1_000,
  retryStrategy: (attempt) => Math.min(50 * attempt, 500),
  lazyConnect: true,
};

/** The connection commands go through. Resolves once connected, or after `waitMs` even if not (the gateway then starts degraded). */
export async function connectRedis(url: string, waitMs = 2_000): Promise<Redis> {
  const client = new Redis(url, requestPathOptions);
  client.on('error', () => {
    // Reported through the limiter's and store's own state; ioredis would otherwise print every retry.
  });
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  await Promise.race([client.connect().catch(() => undefined), giveUp]);
  clearTimeout(timer);
  return client;
}

/** A connection for SUBSCRIBE: it may queue (nothing waits on it) and resubscribes after reconnecting. */
export function createSubscriber(url: string): Redis {
  const client = new Redis(url, { ...requestPathOptions, enableOfflineQueue: true, commandTimeout: undefined, lazyConnect: false, maxRetriesPerRequest: null });
  client.on('error', () => undefined);
  return client;
}

export type { Redis };
