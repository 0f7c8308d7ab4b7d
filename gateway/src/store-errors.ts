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
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`${what} took longer than ${ms} ms`)), ms);
  });
  // The losing side of the race may still settle later; it must not become an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
