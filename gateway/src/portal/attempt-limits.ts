import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClient } from '../redis';

/**
 * How often the portal lets one client try things: sign-ups and log-ins per IP and per email
 * (credential stuffing, password guessing, mass sign-ups), and portal requests per IP (the portal
 * must not be an unmetered way to hammer the store). On rate-limiter-flexible, in Redis when the
 * gateway has one (every replica shares the counts) with an in-process fallback while Redis is
 * unreachable, else in process: the same selection as the API's own limiter.
 */
export interface AttemptPolicy {
  points: number;
  durationSeconds: number;
}

export const ATTEMPT_POLICIES = Object.freeze({
  /** Generous for an office behind one address, useless for mass sign-ups. */
  signUpPerIp: { points: 10, durationSeconds: 3_600 },
  signUpPerEmail: { points: 5, durationSeconds: 3_600 },
  /** Every log-in attempt from one address, right or wrong. */
  logInPerIp: { points: 30, durationSeconds: 900 },
  /** Every attempt on one email, from anywhere: guessing spread over many addresses still stops here. Reset by a successful log-in. */
  logInPerEmail: { points: 10, durationSeconds: 900 },
  /** Portal pages, actions and usage polls per address (static assets excepted). */
  requestsPerIp: { points: 120, durationSeconds: 60 },
} satisfies Record<string, AttemptPolicy>);

export type AttemptKind = keyof typeof ATTEMPT_POLICIES;
export type AttemptPolicies = Record<AttemptKind, AttemptPolicy>;

export interface AttemptLimitsOptions {
  /** The gateway's command connection; absent: in process only. */
  redis?: RedisClient;
  /** Redis key prefix of each kind (see `portalRedisKeys`). */
  keyPrefix: (kind: AttemptKind) => string;
  policies?: Partial<AttemptPolicies>;
}

export class AttemptLimits {
  private readonly limiters: Record<AttemptKind, RateLimiterAbstract>;

  constructor({ redis, keyPrefix, policies = {} }: AttemptLimitsOptions) {
    const all: AttemptPolicies = { ...ATTEMPT_POLICIES, ...policies };
    const make = (kind: AttemptKind): RateLimiterAbstract => {
      const { points, durationSeconds: duration } = all[kind];
      const local = new RateLimiterMemory({ points, duration });
      if (!redis) return local;
      // While Redis is unreachable, each replica counts on its own rather than letting everything through.
      return new RateLimiterRedis({ storeClient: redis, keyPrefix: keyPrefix(kind), points, duration, rejectIfRedisNotReady: true, insuranceLimiter: local });
    };
    this.limiters = {
      signUpPerIp: make('signUpPerIp'),
      signUpPerEmail: make('signUpPerEmail'),
      logInPerIp: make('logInPerIp'),
      logInPerEmail: make('logInPerEmail'),
      requestsPerIp: make('requestsPerIp'),
    };
  }

  /** Counts one attempt: null when it is allowed, else the whole seconds (at least 1) until one will be. */
  async take(kind: AttemptKind, subject: string): Promise<number | null> {
    try {
      await this.limiters[kind].consume(subject);
      return null;
    } catch (rejection) {
      // A RateLimiterRes is "over the limit"; anything else is a store failure the insurance limiter did not absorb.
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection instanceof Error ? rejection : new Error(`attempt limiter failed: ${String(rejection)}`);
    }
  }

  /** Forgets the attempts counted for `subject` (e.g. an email after a successful log-in). */
  async forget(kind: AttemptKind, subject: string): Promise<void> {
    await this.limiters[kind].delete(subject).catch(() => undefined);
  }
}
