import { ReplyError } from 'ioredis';

/**
 * The one failure type of the gateway's external state (key store, limiter store): the store
 * could not answer in time, or at all. Never a client error and never a rate-limit decision:
 * callers fall back, or answer 503.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Bounds how long a request waits on a store, whatever the client's own settings: a Redis that
 * is connected but slow would otherwise hold every request for as long as it takes.
 *
 * When the timer fires, the verdict waits one turn (setImmediate): timers run before the poll phase,
 * so a reply that reached the socket while this process was busy (a burst, a starved CPU) is read
 * first and wins. Without that, the gateway's own lag passes for a slow store and the limiter falls
 * back to in-process counting while Redis is fine.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  // One promise and one timer per call (it runs on every accepted request): whichever settles first wins.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(new StoreUnavailableError(`${what} took longer than ${ms} ms`))), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      // The losing side may still settle later: handled here, so it never becomes an unhandled rejection.
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * A Redis call off the request path (ops reads and writes, background flushes): bounded by `ms`,
 * and a connection failure or timeout becomes StoreUnavailableError (answered 503 by the admin API).
 * Redis's own error replies stay as they are: they are bugs, not outages.
 */
export async function storeCall<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  try {
    return await withDeadline(work, ms, what);
  } catch (error) {
    if (error instanceof StoreUnavailableError || error instanceof ReplyError) throw error;
    throw new StoreUnavailableError(`${what} unavailable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
