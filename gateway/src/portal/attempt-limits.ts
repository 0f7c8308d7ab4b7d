import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClient } from '../redis';
import { DEFAULT_PORTAL_REDIS_PREFIX, portalRedisKeys } from './redis-store';

/**
 * How often the portal lets one client try things: sign-ups per address and per email, failed
 * log-ins (per address, per email and address, per trusted browser, and per email only to slow
 * guessing down), and portal requests per address (the portal must not be an unmetered way to
 * hammer the store). Every per-address count keys IPv6 clients by network, as `/v1`'s anonymous
 * limit does (`clientSubject`: the caller passes that subject, never a raw address). On
 * rate-limiter-flexible, in Redis when the gateway has one (every replica shares the counts) with
 * an in-process fallback while Redis is unreachable, else in process: the same selection as the
 * API's own limiter.
 */
export interface AttemptPolicy {
  points: number;
  durationSeconds: number;
}

export const ATTEMPT_POLICIES = Object.freeze({
  /** Generous for an office behind one address, useless for mass sign-ups. */
  signUpPerAddress: { points: 10, durationSeconds: 3_600 },
  signUpPerEmail: { points: 5, durationSeconds: 3_600 },
  /**
   * Failed log-ins from one address, whatever the email: guessing from one network, and the scrypt
   * work of log-ins to unknown emails (each costs a hash like a real one), stop here.
   */
  logInFailuresPerAddress: { points: 30, durationSeconds: 900 },
  /** Failed log-ins for one email from one address: an attacker locks out only their own address. */
  logInFailuresPerEmailAndAddress: { points: 10, durationSeconds: 900 },
  /** Failed log-ins from a browser holding the email's device cookie (it skips the two rules above). */
  logInFailuresPerDevice: { points: 10, durationSeconds: 900 },
  /**
   * Failed log-ins for one email from anywhere. Never a refusal (that would let anyone lock the owner
   * out): past `points`, every attempt on the email from a browser without its device cookie is
   * slowed down (`LogInSlowdown`).
   */
  logInFailuresPerEmail: { points: 10, durationSeconds: 900 },
  /** "Send the link again" on the dashboard: verification emails per account. */
  verifyEmailsPerAccount: { points: 3, durationSeconds: 3_600 },
  /** Password-reset emails per account, whoever asks: never a refusal anyone sees (the forgot page answers the same). */
  resetEmailsPerAccount: { points: 3, durationSeconds: 3_600 },
  /** Forgot-password requests from one address, whatever the email. */
  resetRequestsPerAddress: { points: 10, durationSeconds: 3_600 },
  /** Portal pages, actions and usage polls per address (static assets excepted). */
  requestsPerAddress: { points: 120, durationSeconds: 60 },
} satisfies Record<string, AttemptPolicy>);

export type AttemptKind = keyof typeof ATTEMPT_POLICIES;
export type AttemptPolicies = Record<AttemptKind, AttemptPolicy>;
const KINDS = Object.keys(ATTEMPT_POLICIES) as AttemptKind[];

export interface AttemptLimitsOptions {
  /** The gateway's command connection; absent: in process only. */
  redis?: RedisClient;
  /** Redis key prefix of each kind (default: the portal's, `portalRedisKeys`). */
  keyPrefix?: (kind: AttemptKind) => string;
  policies?: Partial<AttemptPolicies>;
}

export class AttemptLimits {
  private readonly limiters: Record<AttemptKind, RateLimiterAbstract>;

  constructor({ redis, keyPrefix = portalRedisKeys(DEFAULT_PORTAL_REDIS_PREFIX).attempts, policies = {} }: AttemptLimitsOptions = {}) {
    const all: AttemptPolicies = { ...ATTEMPT_POLICIES, ...policies };
    const make = (kind: AttemptKind): RateLimiterAbstract => {
      const { points, durationSeconds: duration } = all[kind];
      const local = new RateLimiterMemory({ points, duration });
      if (!redis) return local;
      // While Redis is unreachable, each replica counts on its own rather than letting everything through.
      return new RateLimiterRedis({ storeClient: redis, keyPrefix: keyPrefix(kind), points, duration, rejectIfRedisNotReady: true, insuranceLimiter: local });
    };
    this.limiters = Object.fromEntries(KINDS.map((kind) => [kind, make(kind)])) as Record<AttemptKind, RateLimiterAbstract>;
  }

  /** Counts one attempt: null when it is allowed, else the whole seconds (at least 1) until one will be. */
  async take(kind: AttemptKind, subject: string): Promise<number | null> {
    try {
      await this.limiters[kind].consume(subject);
      return null;
    } catch (rejection) {
      return waitOf(rejection);
    }
  }

  /** Gives back an attempt `take` counted (it succeeded, or another rule refused it): only failures stay counted. */
  async giveBack(kind: AttemptKind, subject: string): Promise<void> {
    await this.limiters[kind].reward(subject, 1).catch(() => undefined);
  }

  /** Counts one failure whatever the count already is (never refused). */
  async charge(kind: AttemptKind, subject: string): Promise<void> {
    await this.limiters[kind].penalty(subject, 1).catch(() => undefined);
  }

  /** How many attempts are counted for `subject` in the current window (0 when the store cannot say). */
  async counted(kind: AttemptKind, subject: string): Promise<number> {
    const state = await this.limiters[kind].get(subject).catch(() => null);
    return state?.consumedPoints ?? 0;
  }

  /** The most attempts `kind` allows in a window. */
  allowed(kind: AttemptKind): number {
    return this.limiters[kind].points;
  }

  /** Forgets the attempts counted for `subject`. */
  async forget(kind: AttemptKind, subject: string): Promise<void> {
    await this.limiters[kind].delete(subject).catch(() => undefined);
  }
}

function waitOf(rejection: unknown): number {
  // A RateLimiterRes is "over the limit"; anything else is a store failure the insurance limiter did not absorb.
  if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
  throw rejection instanceof Error ? rejection : new Error(`attempt limiter failed: ${String(rejection)}`);
}
