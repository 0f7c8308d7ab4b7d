import { ApiError } from '../../../shared/src/errors';
import type { Principal } from '../accounts/types';

/**
 * What a valid key may do, checked on every `/v1` request against the principal alone (no store
 * round trip: the principal carries the key's access, expiry and replacement, and is cached with
 * them). Pure functions, so any pipeline can call them where its contract says:
 * - `expiryRefusal` where the key is identified (authentication), so an expired key is refused like
 *   a revoked one: 401, after the anonymous limit, never charged to its account;
 * - `accessRefusal` once the account's rate limit has accepted the request, so a read-only key's
 *   write is counted like any accepted request and answered with the rate-limit headers.
 */

/** The methods a read-only key may use: they read, and change nothing. */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

// RFC 6750 §3.1: a refused bearer token's challenge says why.
const EXPIRED = { 'WWW-Authenticate': 'Bearer realm="animal-store", error="invalid_token", error_description="The API key has expired"' };
const READ_ONLY = { 'WWW-Authenticate': 'Bearer realm="animal-store", error="insufficient_scope", error_description="The API key is read-only"' };

/** 401 when the key has expired at `now` (Unix ms), naming its replacement if it was rolled (its id, never the key); undefined otherwise. */
export function expiryRefusal(principal: Pick<Principal, 'expiresAt' | 'replacedBy'>, now: number): ApiError | undefined {
  if (principal.expiresAt === null || now < principal.expiresAt) return undefined;
  const when = new Date(principal.expiresAt).toISOString();
  const message =
    principal.replacedBy === null
      ? `This API key expired at ${when}; use another key of the account, or create one.`
      : `This API key expired at ${when}: it was rolled, and its replacement is key ${principal.replacedBy}; use that key.`;
  return new ApiError('unauthorized', message, EXPIRED);
}

/** 403 when a read-only key uses a method other than GET or HEAD; undefined otherwise. */
export function accessRefusal(principal: Pick<Principal, 'access'>, method: string): ApiError | undefined {
  if (principal.access !== 'read-only' || READ_METHODS.has(method)) return undefined;
  return new ApiError('forbidden', `This API key is read-only: it may only GET and HEAD, so ${method} is refused. Use a read-write key to make changes.`, READ_ONLY);
}
