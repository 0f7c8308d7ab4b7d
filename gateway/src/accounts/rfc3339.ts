/**
 * RFC 3339 date-times (`2030-01-31T12:00:00Z`, `2030-01-31T14:00:00.5+02:00`): what the admin API
 * accepts as a key's `expiresAt`. `Date.parse` alone will not do: it takes other forms too, and
 * rolls impossible dates over (February 30 becomes March 2) instead of refusing them.
 */
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Unix ms of an RFC 3339 date-time with its time zone, or null for anything else: another form, an
 * impossible date or time, or a leap second (JavaScript time has none). Fractions past the
 * millisecond are dropped.
 */
export function parseRfc3339(text: string): number | null {
  const match = RFC_3339.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const sign = match[8];
  const offsetHours = Number(match[9] ?? 0);
  const offsetMinutes = Number(match[10] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const time = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  time.setUTCFullYear(year, month - 1, day);
  time.setUTCHours(hour, minute, second, Math.trunc(Number(match[7] ?? 0) * 1000));
  const offsetMs = (offsetHours * 60 + offsetMinutes) * 60_000;
  return time.getTime() + (sign === '+' ? -offsetMs : sign === '-' ? offsetMs : 0);
}

function daysInMonth(year: number, month: number): number {
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return last.getUTCDate();
}
