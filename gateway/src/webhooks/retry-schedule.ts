/**
 * `WEBHOOK_RETRY_SCHEDULE`: the delays between a failed attempt and the next, e.g.
 * `5s,30s,2m,10m,30m,2h,5h,10h` (the default: nine attempts over about 18 hours). Units `ms`, `s`,
 * `m`, `h`; `ms` is there for tests, which want a whole schedule in a fraction of a second.
 */
export const DEFAULT_RETRY_SCHEDULE = '5s,30s,2m,10m,30m,2h,5h,10h';
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const ENTRY = /^(\d{1,9})(ms|s|m|h)$/;
const MAX_RETRIES = 20;
const MAX_DELAY_MS = 24 * 3_600_000;

/** The delays in ms, or a sentence saying what is wrong with `raw`. */
export function parseRetrySchedule(raw: string): readonly number[] | string {
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_RETRIES) return `at most ${MAX_RETRIES} delays, got ${entries.length}`;
  const delays: number[] = [];
  for (const entry of entries) {
    const match = ENTRY.exec(entry);
    const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
    if (!(ms >= 1 && ms <= MAX_DELAY_MS)) return `each delay is a whole number with a unit ms, s, m or h, from 1ms to 24h (e.g. 5s,30s,2m), but "${entry}" is not`;
    delays.push(ms);
  }
  return delays;
}
