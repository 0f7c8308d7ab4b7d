import { InvalidArgumentError } from 'commander';

/**
 * How option values on the command line are read into what the admin API takes. Only their form
 * is checked here (a number, a duration); ranges are the API's rules, stated once there.
 */

export const QUOTA_HELP = 'a positive integer';

/**
 * A quota: digits; with `allowNone`, `none`, which clears an override (`quotaFields` makes it null:
 * commander would turn a null from a parser into an empty string).
 */
export function quotaParser(flag: string, allowNone: boolean): (raw: string) => number | 'none' {
  return (raw) => {
    if (allowNone && raw === 'none') return 'none';
    if (/^[0-9]+$/.test(raw)) return Number(raw);
    throw new InvalidArgumentError(`${flag} must be ${QUOTA_HELP}${allowNone ? ' or "none"' : ''}, got "${raw}"`);
  };
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `90`, `90s`, `15m`, `24h` or `7d` in seconds. */
export function durationParser(flag: string): (raw: string) => number {
  return (raw) => {
    const match = /^([0-9]{1,9})([smhd]?)$/.exec(raw);
    if (!match) throw new InvalidArgumentError(`${flag} must be a number of seconds, or a number followed by s, m, h or d (e.g. 24h), got "${raw}"`);
    return Number(match[1]) * DURATION_UNITS[match[2] || 's']!;
  };
}

/** A whole number from `min` to `max` (a local rule: nothing checks it after the CLI). */
export function integerParser(flag: string, min: number, max: number): (raw: string) => number {
  return (raw) => {
    if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new InvalidArgumentError(`${flag} must be an integer from ${min} to ${max}, got "${raw}"`);
    return Number(raw);
  };
}

/** The quota fields of a request body from the options given (absent ones left out). */
export function quotaFields(options: { perMinute?: number | 'none'; perDay?: number | 'none' }): Record<string, number | null> {
  const fields: Record<string, number | null> = {};
  for (const field of ['perMinute', 'perDay'] as const) {
    const value = options[field];
    if (value !== undefined) fields[field] = value === 'none' ? null : value;
  }
  return fields;
}

/** `a, b, c or d`. */
export function orList(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}
