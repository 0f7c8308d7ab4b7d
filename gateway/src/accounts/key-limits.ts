import { ApiError } from '../../../shared/src/errors';
import { RETIRED_KEY_RETENTION, type RetiredKeyRetention } from './retired-keys';
import type { ApiKeyRecord } from './types';

/**
 * What one account may do with keys, on every path (portal, admin API, CLI, console): a key is
 * cheap to make and each one costs the store, the caches and the audit trail something, so one
 * account (a portal sign-up in particular) must not be a key factory, nor keep every key that ever
 * stopped working. Retired keys (revoked, expired, rolled past their grace) are kept a while
 * (listings and the audit trail name them) and then removed, by the store's one rule (retired-keys.ts).
 */
export interface KeyLimits extends RetiredKeyRetention {
  /** Keys created in any 24 hours. */
  createdPerDay: number;
  /** Active (unrevoked) keys held at once. */
  active: number;
}

export const KEY_LIMITS: Readonly<KeyLimits> = Object.freeze({ createdPerDay: 20, active: 10, ...RETIRED_KEY_RETENTION });


const DAY_MS = 86_400_000;

/** Keys that still work or may again: not revoked, not rolled away, not expired at `isoNow`. */
export function activeKeys(keys: readonly ApiKeyRecord[], isoNow: string): ApiKeyRecord[] {
  return keys.filter((key) => key.revokedAt === null && key.replacedBy === undefined && !(key.expiresAt !== undefined && key.expiresAt <= isoNow));
}

/** 429 rate_limited (with Retry-After) when the account has created the most keys it may in the last 24 hours (removed keys count too: they were created). */
export function checkCreatedPerDay(accountId: string, keys: readonly ApiKeyRecord[], now: number, { createdPerDay }: KeyLimits): void {
  const createdToday = keys.map((key) => Date.parse(key.createdAt)).filter((at) => now - at < DAY_MS);
  if (createdToday.length < createdPerDay) return;
  const seconds = Math.max(1, Math.ceil((Math.min(...createdToday) + DAY_MS - now) / 1000));
  throw new ApiError('rate_limited', `Account ${accountId} has created ${createdPerDay} keys in the last 24 hours, the most it may: the next one can be created in ${describeSeconds(seconds)}.`, { 'Retry-After': String(seconds) });
}

function describeSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes < 120 ? `${minutes} minutes` : `${Math.ceil(minutes / 60)} hours`;
}

