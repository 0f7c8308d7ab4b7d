/**
 * A key's masked form, e.g. `ask_live_…Xb12`: its prefix and last four characters, enough for
 * a person to tell their keys apart and match one they hold, and nothing an attacker can use.
 * (The ops tools show keys masked too; the two should share one rule.)
 */
export function maskApiKey(key: string): string {
  const prefixEnd = key.lastIndexOf('_') + 1;
  return `${key.slice(0, prefixEnd)}…${key.slice(-4)}`;
}
