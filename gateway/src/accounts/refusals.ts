import { ApiError } from '../../../shared/src/errors';
import type { RollOutcome } from './types';

/** The account service's refusals a client can act on, each worded once. */

export function notFound(what: 'account' | 'key', id: string): ApiError {
  return new ApiError('not_found', `No ${what} with id "${id}".`);
}

/** Why a key was not rolled, and what to do instead. */
export function notRollable(keyId: string, { outcome, key }: Exclude<RollOutcome, { outcome: 'rolled' }>): ApiError {
  switch (outcome) {
    case 'unknown':
      return notFound('key', keyId);
    case 'revoked':
      return new ApiError('conflict', `Key ${keyId} was revoked at ${key.revokedAt}: a revoked key cannot be rolled. Create a new key instead.`);
    case 'replaced':
      return new ApiError(
        'conflict',
        `Key ${keyId} was already rolled: its replacement is key ${key.replacedBy} (the old key works until ${key.expiresAt}). Roll ${key.replacedBy} instead, or revoke ${keyId} to end its grace period now.`,
      );
    case 'expired':
      return new ApiError('conflict', `Key ${keyId} expired at ${key.expiresAt}: an expired key cannot be rolled. Create a new key instead.`);
  }
}

