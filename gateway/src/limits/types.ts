/** An account's numbers: what the limiter enforces. */
export interface Quotas {
  perMinute: number;
  perDay: number;
}

export type WindowName = 'minute' | 'day';

/** One window as a client sees it in the headers. */
export interface WindowState {
  name: WindowName;
  limit: number;
  /** Requests still accepted in this window (never negative). */
  remaining: number;
  /** Unix time in milliseconds when this window resets. */
  resetAtMs: number;
  /** The window's nominal length in seconds (60 or 86400), for RateLimit-Policy. */
  windowSeconds: number;
}

export type LimitDecision =
  | { outcome: 'allowed'; windows: WindowState[] }
  /** `binding` is the window that refused; `retryAfterMs` is when it frees a request. */
  | { outcome: 'limited'; windows: WindowState[]; binding: WindowName; retryAfterMs: number }
  | { outcome: 'banned'; windows: WindowState[]; bannedUntilMs: number };

/**
 * A decision as `consumeKey` gives it: a plain one when the limiter knows it without asking its store
 * (a refusal it has cached, anything the in-process limiter decides), a promise otherwise. A refusal
 * is the path a client over its quota hammers (issue 29): it costs no promise and no microtask hop.
 */
export type DecisionNowOrLater = LimitDecision | Promise<LimitDecision>;

/** A key and the account it belongs to: the limiter keeps a key's ban beside its account's windows. */
export interface KeyRef {
  accountId: string;
  keyId: string;
}

export interface KeySubject extends KeyRef {
  quotas: Quotas;
}

/** Accepted requests of one account on one UTC day. */
export interface DailyCount {
  /** The UTC date, `YYYY-MM-DD`. */
  day: string;
  accepted: number;
}

/** How many UTC days of accepted-request counts are kept per account. */
export const HISTORY_DAYS_KEPT = 35;

export interface BanPolicy {
  /** Rejected requests of one key within a minute that trigger a ban; null: the key's per-minute limit. */
  threshold: number | null;
  seconds: number;
}

/**
 * The rate limiter as the pipeline sees it. Rejections are decisions, never exceptions:
 * an exception always means the store failed (and must never become a 429).
 */
export interface Limiter {
  /**
   * Checks the ban, then both windows, and counts the request only when both accept it: one atomic
   * step. A decision known locally comes back as it is, not in a promise (`DecisionNowOrLater`).
   */
  consumeKey(subject: KeySubject, now?: number): DecisionNowOrLater;
  /** The per-IP minute window for requests without a valid key. */
  consumeAnonymous(ip: string, perMinute: number, now?: number): Promise<LimitDecision>;
  /** Current usage without counting anything (for the ops API). */
  usage(accountId: string, quotas: Quotas, now?: number): Promise<WindowState[]>;
  /** Accepted requests per UTC day, the last `days` days (at most HISTORY_DAYS_KEPT) ending today, oldest first. */
  history(accountId: string, days: number, now?: number): Promise<DailyCount[]>;
  /** Ends the key's ban (and forgets its recent rejections); idempotent. */
  liftBan(key: KeyRef): Promise<void>;
  /**
   * When the key's temporary ban ends (Unix ms), or null when it is not banned; counts nothing (for
   * the ops API). Takes the account too, so a store may keep the ban beside the account's counters.
   */
  bannedUntil(key: KeyRef, now?: number): Promise<number | null>;
  /** Drops anything cached locally about this account (after a quota change). */
  forgetAccount(accountId: string): void;
  /**
   * 'redis', 'redis-cluster', 'in-process', 'in-process (redis unavailable)', or on a cluster with
   * some masters unreachable 'redis-cluster (in-process for the accounts of N unreachable masters)'.
   */
  readonly mode: string;
  readonly degraded: boolean;
  /** How many parts of the shared store (the Redis, or masters of a cluster) are answered in process now; 0 when all is well. */
  readonly unavailableParts: number;
  close(): Promise<void>;
}
