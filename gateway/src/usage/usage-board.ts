import type { KeyRef, LimitDecision, WindowName } from '../limits/types';
import { utcDate, utcDay } from '../limits/windows';

/**
 * The usage board: which accounts use the largest share of their quota in the current window, and
 * which keys were refused most today. It is derived from the limiter's own decisions (each carries
 * both windows' counts, for the whole account, whichever replica counted them): the rate-limit
 * stage hands every decision to `observe`, which only writes to memory. Nothing is added to the
 * request's round trips; the board is as fresh as its flush interval (see docs/operations.md).
 */

/** One account's window as the latest decision showed it. */
export interface WindowSnapshot {
  used: number;
  quota: number;
  /** When this window ends (Unix ms); it is also the window's identity. */
  resetAtMs: number;
}

export interface UsageEntry {
  accountId: string;
  used: number;
  quota: number;
}

export interface RefusedKey {
  keyId: string;
  accountId: string;
  /** Requests of this key refused today (UTC), rate limited or banned. */
  refused: number;
}

export interface UsageBoard {
  /** On the request path: memory only, never a store call. */
  observe(key: KeyRef, decision: LimitDecision, now: number): void;
  /** Accounts with a non-zero use in the current window, the highest share of quota first. */
  top(window: WindowName, limit: number, now?: number): Promise<UsageEntry[]>;
  /** Keys refused today, the most refused first. */
  refused(limit: number, now?: number): Promise<RefusedKey[]>;
  /** Makes everything observed so far visible to `top` and `refused` (tests; otherwise a timer does). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Replicas report their latest snapshot of an account's window at different moments. Two snapshots
 * whose ends lie this close are the same window (each replica anchors the end on its own clock):
 * the larger count is the later one. Otherwise the window that ends later is the current one.
 */
export const SAME_WINDOW_TOLERANCE_MS = 2_000;

export function laterSnapshot(current: WindowSnapshot | undefined, next: WindowSnapshot): WindowSnapshot {
  if (!current) return next;
  if (Math.abs(next.resetAtMs - current.resetAtMs) < SAME_WINDOW_TOLERANCE_MS) return next.used >= current.used ? next : current;
  return next.resetAtMs > current.resetAtMs ? next : current;
}

/** Only a request the limiter refused is a refusal: accepted ones cost the key nothing here. */
export function isRefusal(decision: LimitDecision): boolean {
  return decision.outcome !== 'allowed';
}

export interface RefusalCount {
  accountId: string;
  count: number;
  /** The UTC date the refusals were counted on. */
  date: string;
}

/** What one replica observed: the latest snapshot per account and window, refusals per key and day. */
export class UsageTally {
  minute = new Map<string, WindowSnapshot>();
  day = new Map<string, WindowSnapshot>();
  refusals = new Map<string, RefusalCount>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.minute.size + this.day.size + this.refusals.size;
  }

  observe({ accountId, keyId }: KeyRef, decision: LimitDecision, now: number): void {
    // Bounded: an unflushable backlog (Redis away for long) stops growing; known entries still update.
    const full = this.size >= this.maxEntries;
    for (const window of decision.windows) {
      const map = window.name === 'minute' ? this.minute : this.day;
      if (full && !map.has(accountId)) continue;
      const snapshot = { used: Math.max(0, window.limit - window.remaining), quota: window.limit, resetAtMs: window.resetAtMs };
      map.set(accountId, laterSnapshot(map.get(accountId), snapshot));
    }
    if (!isRefusal(decision)) return;
    const date = utcDate(utcDay(now));
    const counted = this.refusals.get(keyId);
    if (counted && counted.date === date) counted.count += 1;
    else if (!full || counted) this.refusals.set(keyId, { accountId, count: 1, date });
  }

  /** Takes everything observed so far, leaving the tally empty. */
  drain(): { minute: Map<string, WindowSnapshot>; day: Map<string, WindowSnapshot>; refusals: Map<string, RefusalCount> } {
    const drained = { minute: this.minute, day: this.day, refusals: this.refusals };
    this.minute = new Map();
    this.day = new Map();
    this.refusals = new Map();
    return drained;
  }

  /** Puts back what a failed flush drained, merged with what was observed meanwhile. */
  restore(drained: ReturnType<UsageTally['drain']>): void {
    for (const [accountId, snapshot] of drained.minute) this.minute.set(accountId, laterSnapshot(this.minute.get(accountId), snapshot));
    for (const [accountId, snapshot] of drained.day) this.day.set(accountId, laterSnapshot(this.day.get(accountId), snapshot));
    for (const [keyId, refusal] of drained.refusals) {
      const counted = this.refusals.get(keyId);
      if (counted && counted.date === refusal.date) counted.count += refusal.count;
      else if (!counted || counted.date < refusal.date) this.refusals.set(keyId, { ...refusal });
    }
  }

  /** Drops windows that have ended and refusals of earlier days. */
  prune(now: number): void {
    for (const map of [this.minute, this.day]) for (const [accountId, snapshot] of map) if (snapshot.resetAtMs <= now) map.delete(accountId);
    const today = utcDate(utcDay(now));
    for (const [keyId, refusal] of this.refusals) if (refusal.date !== today) this.refusals.delete(keyId);
  }
}

export function byShareOfQuota(a: UsageEntry, b: UsageEntry): number {
  return b.used / b.quota - a.used / a.quota || b.used - a.used || (a.accountId < b.accountId ? -1 : 1);
}

export function byRefusals(a: RefusedKey, b: RefusedKey): number {
  return b.refused - a.refused || (a.keyId < b.keyId ? -1 : 1);
}

/**
 * The board of a gateway that runs alone (the in-process store): its own observations are the
 * whole truth, so it reads them directly, with no staleness at all.
 */
export class LocalUsageBoard implements UsageBoard {
  private readonly tally: UsageTally;
  private lastPruneMs = 0;

  constructor({ maxEntries = 200_000 }: { maxEntries?: number } = {}) {
    this.tally = new UsageTally(maxEntries);
  }

  observe(key: KeyRef, decision: LimitDecision, now: number): void {
    // Ended windows go once a minute, so memory follows the accounts active now.
    if (now - this.lastPruneMs >= 60_000) {
      this.lastPruneMs = now;
      this.tally.prune(now);
    }
    this.tally.observe(key, decision, now);
  }

  async top(window: WindowName, limit: number, now = Date.now()): Promise<UsageEntry[]> {
    const entries: UsageEntry[] = [];
    for (const [accountId, { used, quota, resetAtMs }] of window === 'minute' ? this.tally.minute : this.tally.day) {
      if (resetAtMs > now && used > 0) entries.push({ accountId, used, quota });
    }
    return entries.sort(byShareOfQuota).slice(0, limit);
  }

  async refused(limit: number, now = Date.now()): Promise<RefusedKey[]> {
    const today = utcDate(utcDay(now));
    const keys: RefusedKey[] = [];
    for (const [keyId, { accountId, count, date }] of this.tally.refusals) if (date === today) keys.push({ keyId, accountId, refused: count });
    return keys.sort(byRefusals).slice(0, limit);
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
