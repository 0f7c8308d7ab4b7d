import type { ApiKeyRecord } from './types';

/**
 * How long an account keeps the keys that no longer work ("retired" keys: revoked, or expired,
 * which is how a rolled key ends after its grace period). They are kept a while, since listings and
 * the audit trail name them and a rolled key's 401 names its replacement from its record; then they
 * are removed, so that neither revocations nor rolls can pile records up (issue 24).
 */
export interface RetiredKeyRetention {
  /** Retired keys kept per account; past it, the ones retired longest ago are removed. */
  retiredKept: number;
  /** A retired key is removed this long after it stopped working. */
  retiredRetentionMs: number;
}

/** The one rule, for every store: the newest 20 retired keys kept, none past 30 days. */
export const RETIRED_KEY_RETENTION: Readonly<RetiredKeyRetention> = Object.freeze({ retiredKept: 20, retiredRetentionMs: 30 * 86_400_000 });

/**
 * When the key stopped working, as of `isoNow` (ISO 8601 in UTC, as the store keeps times, so they
 * compare as strings): its revocation or its expiry, whichever came first; null while it works (a
 * rolled key in its grace period included).
 */
export function retiredAt(key: ApiKeyRecord, isoNow: string): string | null {
  const expired = key.expiresAt !== undefined && key.expiresAt <= isoNow ? key.expiresAt : null;
  if (key.revokedAt === null) return expired;
  return expired !== null && expired < key.revokedAt ? expired : key.revokedAt;
}

/** The retired keys among `keys` (one account's) that the rule removes at `isoNow`: past the retention, or beyond the number kept (retired longest ago first). */
export function retiredKeysToRemove(keys: readonly ApiKeyRecord[], isoNow: string, { retiredKept, retiredRetentionMs }: RetiredKeyRetention): ApiKeyRecord[] {
  const now = Date.parse(isoNow);
  const retired = keys
    .map((key) => ({ key, at: retiredAt(key, isoNow) }))
    .filter((entry): entry is { key: ApiKeyRecord; at: string } => entry.at !== null)
    // Retired most recently first; on a tie, the newer key first (every store orders alike).
    .sort((a, b) => descending(a.at, b.at) || descending(a.key.createdAt, b.key.createdAt) || descending(a.key.id, b.key.id));
  return retired.filter(({ at }, i) => i >= retiredKept || now - Date.parse(at) >= retiredRetentionMs).map(({ key }) => key);
}

function descending(a: string, b: string): number {
  return a === b ? 0 : a < b ? 1 : -1;
}
