/**
 * How a key is shown once it has been handed out: its prefix and its last four characters,
 * `ask_live_…Ab12`, enough for a person to tell their keys apart and match one against a log or a
 * config file. It is made at creation (only the hash is stored afterwards).
 *
 * Why it is safe: the last six characters of a key are a CRC-32 checksum of its random part, so the
 * four shown say about 24 bits about the random part and nothing else; at least 107 of its 131
 * random bits stay unknown, far out of reach of guessing (and every guess costs a rate-limited request).
 */
const PREFIX = /^[a-z]+_[a-z]+_/;
export const MASKED_TAIL_LENGTH = 4;

export function maskApiKey(key: string): string {
  const prefix = PREFIX.exec(key)?.[0] ?? '';
  return `${prefix}…${key.slice(-MASKED_TAIL_LENGTH)}`;
}
