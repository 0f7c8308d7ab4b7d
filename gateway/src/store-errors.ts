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
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(new StoreUnavailableError(`${what} took longer than ${ms} ms`))), ms);
  });
  // The losing side of the race may still settle later; it must not become an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/**
 * One store call under a deadline: connection failures and timeouts become StoreUnavailableError,
 * while a store's own replies to a bad command (bugs, e.g. ioredis' ReplyError, as `isOwnReply` tells)
 * stay as they are.
 */
export async function callStore<T>(command: () => Promise<T>, { ms, what, isOwnReply }: { ms: number; what: string; isOwnReply: (error: unknown) => boolean }): Promise<T> {
  try {
    return await withDeadline(command(), ms, what);
  } catch (error) {
    if (isOwnReply(error) || error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(`${what} unavailable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
