import { RateLimiterMemory } from 'rate-limiter-flexible';
import { AnonymousLimiter } from './anonymous';
import { HISTORY_DAYS_KEPT, type BanPolicy, type DailyCount, type DecisionNowOrLater, type KeyRef, type KeySubject, type LimitDecision, type Limiter, type Quotas, type WindowState } from './types';
import { accountWindows, countRejection, lastUtcDays, MINUTE_MS, nextUtcMidnightMs, refusingWindow, utcDate, utcDay } from './windows';

interface AccountCounts {
  minute: number;
  minuteResetAtMs: number;
  day: number;
  dayNumber: number;
}

interface KeyCounts {
  rejections: number;
  rejectionsResetAtMs: number;
  bannedUntilMs: number;
}

const SWEEP_EVERY_MS = MINUTE_MS;

/**
 * The in-process limiter: the embedded default and the fallback while Redis is down. Same rules
 * as the Lua script, and atomic for the same reason: check and count happen in one synchronous
 * step, with no await in between.
 */
export class MemoryLimiter implements Limiter {
  readonly degraded: boolean = false;
  readonly unavailableParts = 0;
  private readonly accounts = new Map<string, AccountCounts>();
  private readonly keys = new Map<string, KeyCounts>();
  /** Accepted requests per account per UTC day number, for HISTORY_DAYS_KEPT days. */
  private readonly daily = new Map<string, Map<number, number>>();
  private readonly anonymous = new AnonymousLimiter((points) => new RateLimiterMemory({ points, duration: 60 }));
  private lastSweepMs = 0;

  readonly mode = 'in-process';

  constructor(private readonly ban: BanPolicy) {}

  /** Always decided at once: nothing to wait for. */
  consumeKey(subject: KeySubject, now?: number): DecisionNowOrLater {
    return this.decide(subject, now ?? Date.now());
  }

  consumeAnonymous(ip: string, perMinute: number, now?: number): Promise<LimitDecision> {
    return this.anonymous.consume(ip, perMinute, now);
  }

  usage(accountId: string, quotas: Quotas, now?: number): Promise<WindowState[]> {
    const at = now ?? Date.now();
    return Promise.resolve(this.windows(quotas, this.current(accountId, at), at));
  }

  history(accountId: string, days: number, now?: number): Promise<DailyCount[]> {
    const counts = this.daily.get(accountId);
    const wanted = lastUtcDays(now ?? Date.now(), Math.min(days, HISTORY_DAYS_KEPT));
    return Promise.resolve(wanted.map((day) => ({ day: utcDate(day), accepted: counts?.get(day) ?? 0 })));
  }

  liftBan({ keyId }: KeyRef): Promise<void> {
    this.keys.delete(keyId);
    return Promise.resolve();
  }

  bannedUntil({ keyId }: KeyRef, now?: number): Promise<number | null> {
    const until = this.keys.get(keyId)?.bannedUntilMs ?? 0;
    return Promise.resolve(until > (now ?? Date.now()) ? until : null);
  }

  /** Nothing to forget: quotas arrive with every call and the counts stay true whatever they are. */
  forgetAccount(_accountId: string): void {}

  /** Drops every count (used when Redis returns, so the next outage starts from a clean slate). */
  reset(): void {
    this.accounts.clear();
    this.keys.clear();
    this.daily.clear();
  }

  close(): Promise<void> {
    this.reset();
    return Promise.resolve();
  }

  private decide({ accountId, keyId, quotas }: KeySubject, now: number): LimitDecision {
    this.sweep(now);
    const counts = this.current(accountId, now);
    const windows = this.windows(quotas, counts, now);
    const key = this.keys.get(keyId);
    if (key && key.bannedUntilMs > now) return { outcome: 'banned', windows, bannedUntilMs: key.bannedUntilMs };

    const refusing = refusingWindow(windows);
    if (!refusing) {
      if (counts.minute === 0) counts.minuteResetAtMs = now + MINUTE_MS;
      counts.minute += 1;
      counts.day += 1;
      this.accounts.set(accountId, counts);
      this.countDay(accountId, counts.dayNumber);
      return { outcome: 'allowed', windows: this.windows(quotas, counts, now) };
    }

    const { banned, ...rejections } = countRejection(key, now, this.ban, quotas);
    if (banned) {
      this.keys.set(keyId, { rejections: 0, rejectionsResetAtMs: 0, bannedUntilMs: now + this.ban.seconds * 1000 });
      return { outcome: 'banned', windows, bannedUntilMs: now + this.ban.seconds * 1000 };
    }
    this.keys.set(keyId, { ...rejections, bannedUntilMs: 0 });
    return { outcome: 'limited', windows, binding: refusing.name, retryAfterMs: refusing.resetAtMs - now };
  }

  private countDay(accountId: string, day: number): void {
    let counts = this.daily.get(accountId);
    if (!counts) {
      counts = new Map();
      this.daily.set(accountId, counts);
    }
    counts.set(day, (counts.get(day) ?? 0) + 1);
  }

  private windows(quotas: Quotas, counts: AccountCounts, now: number): WindowState[] {
    return accountWindows(quotas, {
      minuteCount: counts.minute,
      minuteResetAtMs: counts.minute > 0 ? counts.minuteResetAtMs : now + MINUTE_MS,
      dayCount: counts.day,
      dayResetAtMs: nextUtcMidnightMs(now),
    });
  }

  /** The account's counts as of `now`: a window that has ended reads as empty. */
  private current(accountId: string, now: number): AccountCounts {
    const stored = this.accounts.get(accountId);
    const today = utcDay(now);
    const minuteLive = stored !== undefined && stored.minuteResetAtMs > now;
    return {
      minute: minuteLive ? stored.minute : 0,
      minuteResetAtMs: minuteLive ? stored.minuteResetAtMs : 0,
      day: stored?.dayNumber === today ? stored.day : 0,
      dayNumber: today,
    };
  }


  /** Entries whose windows have all ended are dropped, so memory follows the active accounts and keys. */
  private sweep(now: number): void {
    if (now - this.lastSweepMs < SWEEP_EVERY_MS) return;
    this.lastSweepMs = now;
    const today = utcDay(now);
    for (const [id, counts] of this.accounts) if (counts.minuteResetAtMs <= now && counts.dayNumber !== today) this.accounts.delete(id);
    for (const [id, key] of this.keys) if (key.rejectionsResetAtMs <= now && key.bannedUntilMs <= now) this.keys.delete(id);
    for (const [id, days] of this.daily) {
      for (const day of days.keys()) if (day <= today - HISTORY_DAYS_KEPT) days.delete(day);
      if (days.size === 0) this.daily.delete(id);
    }
  }
}
