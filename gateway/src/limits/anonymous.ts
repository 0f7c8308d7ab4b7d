import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { LruMap } from '../accounts/lru-map';
import type { LimitDecision } from './types';
import { MINUTE_MS, window } from './windows';

/**
 * The per-IP minute window for requests without a valid key, on rate-limiter-flexible.
 * RLF fixes `points` per limiter instance, so there is one instance per distinct per-minute value
 * (in practice one: ANON_PER_MINUTE); they share a key prefix, so with Redis a changed value keeps
 * the counts already made.
 */
export class AnonymousLimiter {
  private readonly byPoints = new LruMap<number, RateLimiterAbstract>(16);

  constructor(
    private readonly create: (points: number) => RateLimiterAbstract,
    private readonly guard: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  ) {}

  async consume(ip: string, perMinute: number, now?: number): Promise<LimitDecision> {
    const limiter = this.limiterFor(perMinute);
    let accepted: RateLimiterRes;
    try {
      accepted = await this.guard(() => limiter.consume(ip));
    } catch (rejection) {
      // RLF rejects with a RateLimiterRes when over the limit and with an Error when the store
      // failed: only the first is a 429; the second must reach the failover as an exception.
      if (rejection instanceof RateLimiterRes) return anonymousDecision(rejection, perMinute, now ?? Date.now(), false);
      throw rejection instanceof Error ? rejection : new Error(`rate limiter store failed: ${String(rejection)}`);
    }
    return anonymousDecision(accepted, perMinute, now ?? Date.now(), true);
  }

  private limiterFor(points: number): RateLimiterAbstract {
    let limiter = this.byPoints.get(points);
    if (!limiter) {
      limiter = this.create(points);
      this.byPoints.set(points, limiter);
    }
    return limiter;
  }
}

export function anonymousDecision(res: RateLimiterRes, perMinute: number, now: number, accepted: boolean): LimitDecision {
  // A negative msBeforeNext means "no expiry known"; a full window is the honest upper bound.
  const msUntilReset = res.msBeforeNext >= 0 ? res.msBeforeNext : MINUTE_MS;
  // A refusal from the in-memory block carries no count (it asked nobody): the window is full.
  const consumed = accepted ? res.consumedPoints : Math.max(res.consumedPoints, perMinute);
  const windows = [window('minute', perMinute, consumed, now + msUntilReset, 60)];
  if (accepted) return { outcome: 'allowed', windows };
  return { outcome: 'limited', windows, binding: 'minute', retryAfterMs: msUntilReset };
}
