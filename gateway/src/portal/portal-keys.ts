import { ApiError } from '../../../shared/src/errors';
import type { AccountService } from '../accounts/account-service';
import type { CreatedKey, KeyView, RolledKey } from '../accounts/account-views';
import { parseRfc3339 } from '../accounts/rfc3339';
import { validateKeyRoll, type NewKeyInput } from '../accounts/schemas';
import { KEY_ID_PATTERN } from '../keys/api-key';

export type { KeyView };

/**
 * The keys an account manages from the portal: create, roll and revoke its own keys only. They go
 * through AccountService (the ops use cases), so a revocation reaches every replica the same way.
 */
export class PortalKeys {
  constructor(private readonly accounts: AccountService) {}

  /**
   * A new key, with the name, access and expiry (RFC 3339) the form gave, within the key limits every
   * path has (`KEY_LIMITS`): a refusal is shown on the dashboard.
   */
  async createKey(accountId: string, input: NewKeyInput = {}): Promise<CreatedKey> {
    if (input.expiresAt !== undefined) {
      const at = parseRfc3339(input.expiresAt);
      if (at === null) throw new ApiError('invalid_body', 'Enter the expiry as a date and a time (UTC), or leave it empty for a key that never expires.');
      if (at <= Date.now()) throw new ApiError('invalid_body', 'The expiry must be in the future (times are UTC).');
    }
    return this.accounts.createKey(accountId, portalActor(accountId), input).catch(inPortalWords);
  }

  /**
   * Rolls one of the account's own keys: a new key with the same name and access, the old one
   * working for `gracePeriodSeconds` more. Not counted against the active keys: it replaces one.
   */
  async rollKey(accountId: string, keyId: string, gracePeriodSeconds: number): Promise<RolledKey> {
    await this.ownKey(accountId, keyId);
    try {
      validateKeyRoll({ gracePeriodSeconds });
    } catch {
      // The admin schema's rule, in the portal's words.
      throw new ApiError('invalid_body', 'The grace period must be a whole number from 0 seconds to 7 days.');
    }
    return this.accounts.rollKey(keyId, { gracePeriodSeconds }, portalActor(accountId)).catch(inPortalWords);
  }

  /** Only the account's own keys: another account's key id is answered as unknown. */
  async revokeKey(accountId: string, keyId: string): Promise<void> {
    await this.ownKey(accountId, keyId);
    await this.accounts.revokeKey(keyId, portalActor(accountId));
  }

  async ownKey(accountId: string, keyId: string): Promise<KeyView> {
    const key = KEY_ID_PATTERN.test(keyId) ? (await this.accounts.listKeys(accountId)).find((candidate) => candidate.id === keyId) : undefined;
    if (!key) throw new ApiError('not_found', `Your account has no key with id "${keyId}".`);
    return key;
  }
}

/** Whether a key's expiry has passed. */
export function hasExpired(key: Pick<KeyView, 'expiresAt'>, now = Date.now()): boolean {
  return key.expiresAt !== null && Date.parse(key.expiresAt) <= now;
}

/**
 * The account service's refusals of what a person asked for, in the portal's words: the key limits
 * speak of "this account" (the most active keys held: 409 conflict; the most created in a day: 429
 * with its Retry-After); a bad name or a key that cannot be rolled as the service said it.
 */
function inPortalWords(error: unknown): never {
  if (!(error instanceof ApiError)) throw error;
  const message = error.message.replace(/^Account \S+ (already )?has/, 'This account $1has');
  if (error.code === 'rate_limited') throw new ApiError('rate_limited', message, error.headers);
  if (error.code === 'invalid_parameter' && /active keys/.test(error.message)) throw new ApiError('conflict', message);
  throw error;
}

/** Who made a change through the portal, for the audit trail: the account itself. */
export function portalActor(accountId: string): string {
  return `portal:${accountId}`;
}
