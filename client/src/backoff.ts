/** What may be retried, and after how long. Pure functions: the client supplies the clock and the dice. */

/** Answers worth another try: the rate limit (after Retry-After) and the gateway's "not now" answers. Never 400, 401, 403, 404, 409, 422. */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export const BACKOFF_BASE_MS = 250;
export const BACKOFF_MAX_MS = 8_000;

/**
 * Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"):
 * a uniformly random wait between 0 and min(max, base × 2^retry), so that clients which failed
 * together do not come back together. `retry` counts from 0.
 */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * The wait before retrying an answer: for 429 what `Retry-After` says, plus a little jitter (at most
 * a tenth, at most a second) so that callers released together do not arrive together; for 502, 503
 * and 504 the backoff, but never less than a `Retry-After` the answer carried; without one, the backoff.
 */
export function retryDelayMs(status: number, retryAfterSeconds: number | undefined, retry: number, random: () => number = Math.random): number {
  if (retryAfterSeconds === undefined) return backoffMs(retry, random);
  const told = retryAfterSeconds * 1000;
  if (status === 429) return told + Math.floor(random() * Math.min(1_000, told / 10));
  return Math.max(told, backoffMs(retry, random));
}
