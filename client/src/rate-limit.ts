import { AnimalStoreError } from './errors';

/** The rate-limit fields of the last answer: the window with the fewest requests left. */
export interface RateLimit {
  /** `X-RateLimit-Limit`: that window's quota. */
  limit: number;
  /** `X-RateLimit-Remaining`: requests left in it. */
  remaining: number;
  /** `X-RateLimit-Reset`: when it resets, in Unix seconds. */
  reset: number;
}

/** `X-RateLimit-*` of an answer, or undefined when it has none. */
export function rateLimitOf(headers: Headers): RateLimit | undefined {
  const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) => Number(headers.get(name) ?? Number.NaN));
  if (![limit, remaining, reset].every((n) => Number.isInteger(n) && n! >= 0)) return undefined;
  return { limit: limit!, remaining: remaining!, reset: reset! };
}

/**
 * Milliseconds until the window of `X-RateLimit-*` resets. The IETF `RateLimit` field's `t` is
 * relative (`"minute";r=0;t=42`), so it holds whatever this machine's clock says; without it,
 * `X-RateLimit-Reset` against the local clock.
 */
function millisecondsToReset(headers: Headers, rateLimit: RateLimit, nowMs: number): number {
  const t = /;t=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1];
  return t !== undefined ? Number(t) * 1000 : rateLimit.reset * 1000 - nowMs;
}

/**
 * Keeps one client from sending what its account's rate limit would refuse: a key that keeps
 * sending while limited is banned (the gateway's `BAN_THRESHOLD` refusals within a minute), so the
 * cheapest refusal is the one never sent.
 *
 * - After a 429, nothing is sent until its `Retry-After` has passed (every call of the client, not
 *   only the retrying one).
 * - When the last answer left no request in its window, nothing is sent until that window resets;
 *   requests already in flight count against what is left (conservatively: some of them may already
 *   be counted in the last answer), so concurrent calls do not overshoot it together.
 * - A call that would have to wait past its own deadline is refused at once, locally: an
 *   `AnimalStoreError` 429 `rate_limited` with `retryAfter` and no `requestId`.
 * The state is this client's view: other clients of the same account are not seen, and after a
 * window resets the client assumes it is full again until an answer says otherwise.
 */
export class RateLimitPacer {
  /** The binding window as the answers describe it; `reset` (X-RateLimit-Reset, whole seconds) names the window. */
  private known: { limit: number; remaining: number; reset: number; resetAtMs: number } | undefined;
  private blockedUntilMs = 0;
  private inFlight = 0;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Waits until a request may be sent without being refused, then counts it in flight (`settled` must follow). */
  async acquire(deadlineMs: number, signal: AbortSignal): Promise<void> {
    for (;;) {
      signal.throwIfAborted();
      const now = this.now();
      const notBefore = this.notBefore(now);
      if (notBefore <= now) {
        this.inFlight += 1;
        return;
      }
      if (Number.isFinite(notBefore) && notBefore > deadlineMs) {
        const seconds = Math.max(1, Math.ceil((notBefore - now) / 1000));
        throw new AnimalStoreError({
          status: 429,
          code: 'rate_limited',
          message: `Not sent: the rate limit allows no request for ${seconds} s (the API's last answers said so), later than this call's deadline. Retry after ${seconds} s.`,
          retryAfter: seconds,
        });
      }
      await this.changeOr(notBefore - now, signal);
    }
  }

  /** A request counted by `acquire` ended; its answer's headers (none after a network failure) update the view. */
  settled(headers: Headers | undefined, status: number | undefined, retryAfterSeconds: number | undefined): void {
    this.inFlight -= 1;
    const now = this.now();
    const rateLimit = headers && rateLimitOf(headers);
    if (headers && rateLimit) this.learn(rateLimit, now + millisecondsToReset(headers, rateLimit, now));
    if (status === 429 && retryAfterSeconds !== undefined) this.blockedUntilMs = Math.max(this.blockedUntilMs, now + retryAfterSeconds * 1000);
    for (const wake of this.waiters) wake();
  }

  /**
   * Answers of concurrent requests arrive in any order: within one window the remaining count only
   * goes down, so the lowest one seen is the truth; an answer about an earlier window than the known
   * one is old news.
   */
  private learn(rateLimit: RateLimit, resetAtMs: number): void {
    const known = this.known;
    if (known && rateLimit.reset < known.reset) return;
    if (known && rateLimit.reset === known.reset) {
      known.remaining = Math.min(known.remaining, rateLimit.remaining);
      return;
    }
    this.known = { limit: rateLimit.limit, remaining: rateLimit.remaining, reset: rateLimit.reset, resetAtMs };
  }

  /** When the next request may go: now, a time, or never before another answer (infinity: what is left is all in flight). */
  private notBefore(now: number): number {
    if (this.blockedUntilMs > now) return this.blockedUntilMs;
    const known = this.known;
    if (!known || this.inFlight === 0 && known.resetAtMs <= now) return now;
    const windowOver = known.resetAtMs <= now;
    if ((windowOver ? known.limit : known.remaining) - this.inFlight > 0) return now;
    if (!windowOver && known.remaining === 0) return known.resetAtMs;
    if (this.inFlight === 0) return now;
    return Number.POSITIVE_INFINITY;
  }

  /** Resolves after `ms`, or as soon as an answer changes the view, or rejects when `signal` aborts. */
  private changeOr(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = () => {
        done();
        reject(signal.reason);
      };
      const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      this.waiters.add(done);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }
}
