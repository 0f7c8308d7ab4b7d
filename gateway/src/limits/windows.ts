import type { BanPolicy, Quotas, WindowName, WindowState } from './types';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** Days since the epoch in UTC: the day window's identity, so it turns over at 00:00 UTC. */
export function utcDay(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS);
}

let lastDate = { day: Number.NaN, text: '' };

/**
 * `YYYY-MM-DD` of a UTC day number. Asked for today on every refused request with a key (the
 * usage board's refusal count): the last answer is kept, since formatting a Date costs microseconds
 * and the day changes once a day.
 */
export function utcDate(day: number): string {
  if (day !== lastDate.day) lastDate = { day, text: new Date(day * DAY_MS).toISOString().slice(0, 10) };
  return lastDate.text;
}

/** The last `days` UTC day numbers ending with today's, oldest first. */
export function lastUtcDays(nowMs: number, days: number): number[] {
  const today = utcDay(nowMs);
  return Array.from({ length: days }, (_, i) => today - days + 1 + i);
}

export function nextUtcMidnightMs(nowMs: number): number {
  return (utcDay(nowMs) + 1) * DAY_MS;
}

/** Below 1 means "never ban": a zero per-minute quota must not ban every key on its first request. */
export function banThreshold(policy: BanPolicy, quotas: Quotas): number {
  const threshold = policy.threshold ?? quotas.perMinute;
  return threshold >= 1 ? threshold : 0;
}

/** A key's refused requests in the minute that began with the first of them. */
export interface RejectionCount {
  rejections: number;
  rejectionsResetAtMs: number;
}

/**
 * The ban rule as the TypeScript limiters apply it (the Lua script states it for Redis; the Limiter
 * contract keeps them equal): one more rejection of the key at `now`, counted in the minute its
 * first rejection began (a new minute if that one ended), and whether that many ban it.
 */
export function countRejection(stored: RejectionCount | undefined, now: number, policy: BanPolicy, quotas: Quotas): RejectionCount & { banned: boolean } {
  const live = stored !== undefined && stored.rejectionsResetAtMs > now;
  const rejections = (live ? stored.rejections : 0) + 1;
  const threshold = banThreshold(policy, quotas);
  return { rejections, rejectionsResetAtMs: live ? stored.rejectionsResetAtMs : now + MINUTE_MS, banned: threshold > 0 && rejections >= threshold };
}

export function sameQuotas(a: Quotas, b: Quotas): boolean {
  return a.perMinute === b.perMinute && a.perDay === b.perDay;
}

export interface WindowCounts {
  minuteCount: number;
  minuteResetAtMs: number;
  dayCount: number;
  dayResetAtMs: number;
}

export function accountWindows(quotas: Quotas, counts: WindowCounts): WindowState[] {
  return [
    window('minute', quotas.perMinute, counts.minuteCount, counts.minuteResetAtMs, 60),
    window('day', quotas.perDay, counts.dayCount, counts.dayResetAtMs, 86_400),
  ];
}

export function window(name: WindowName, limit: number, count: number, resetAtMs: number, windowSeconds: number): WindowState {
  return { name, limit, remaining: Math.max(0, limit - count), resetAtMs, windowSeconds };
}

/**
 * The window that refuses: when both are full, the one that frees later, because a retry
 * before then would be refused by it anyway.
 */
export function refusingWindow(windows: WindowState[]): WindowState | undefined {
  let refusing: WindowState | undefined;
  for (const w of windows) {
    if (w.remaining > 0) continue;
    if (!refusing || w.resetAtMs > refusing.resetAtMs) refusing = w;
  }
  return refusing;
}

/** The window the headers describe: fewest remaining, and on a tie the one that resets later. */
export function bindingWindow(windows: WindowState[]): WindowState | undefined {
  let binding: WindowState | undefined;
  for (const w of windows) {
    if (!binding || w.remaining < binding.remaining || (w.remaining === binding.remaining && w.resetAtMs > binding.resetAtMs)) binding = w;
  }
  return binding;
}

/** The same windows with the refusing one shown as exhausted (a local answer may hold an older snapshot). */
export function exhausted(windows: WindowState[], name: WindowName): WindowState[] {
  return windows.map((w) => (w.name === name ? { ...w, remaining: 0 } : w));
}
