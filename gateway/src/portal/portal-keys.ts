import { ApiError } from '../../../shared/src/errors';
import type { AccountService } from '../accounts/account-service';
import type { CreatedKey, KeyView, RolledKey } from '../accounts/account-views';
import { parseRfc3339 } from '../accounts/rfc3339';
import { validateKeyRoll, type NewKeyInput } from '../accounts/schemas';
import { KEY_ID_PATTERN } from '../keys/api-key';
import { PortalRefusal } from './portal-refusal';

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
      if (at === null) throw new PortalRefusal(400, 'Enter the expiry as a date and a time (UTC), or leave it empty for a key that never expires.');
      if (at <= Date.now()) throw new PortalRefusal(400, 'The expiry must be in the future (times are UTC).');
    }
    return this.accounts.createKey(accountId, portalActor(accountId), input).catch(asPortalRefusal);
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
      throw new PortalRefusal(400, 'The grace period must be a whole number from 0 seconds to 7 days.');
    }
    return this.accounts.rollKey(keyId, { gracePeriodSeconds }, portalActor(accountId)).catch(asPortalRefusal);
  }

  /** Only the account's own keys: another account's key id is answered as unknown. */
  async revokeKey(accountId: string, keyId: string): Promise<void> {
    await this.ownKey(accountId, keyId);
    await this.accounts.revokeKey(keyId, portalActor(accountId));
  }

  async ownKey(accountId: string, keyId: string): Promise<KeyView> {
    const key = KEY_ID_PATTERN.test(keyId) ? (await this.accounts.listKeys(accountId)).find((candidate) => candidate.id === keyId) : undefined;
    if (!key) throw new PortalRefusal(404, `Your account has no key with id "${keyId}".`);
    return key;
  }
}

/** Whether a key's expiry has passed. */
export function hasExpired(key: Pick<KeyView, 'expiresAt'>, now = Date.now()): boolean {
  return key.expiresAt !== null && Date.parse(key.expiresAt) <= now;
}

/**
 * The account service's refusals of what a person asked for, as the portal shows them: a bad name,
 * a key that cannot be rolled, the key limits (the most active keys held: 409; the most created in
 * a day: 429 with when to try again).
 */
function asPortalRefusal(error: unknown): never {
  if (!(error instanceof ApiError)) throw error;
  const retryAfter = error.headers['Retry-After'];
  const message = error.message.replace(/^Account \S+ (already )?has/, 'This account $1has');
  if (error.code === 'rate_limited') throw new PortalRefusal(429, message, retryAfter === undefined ? undefined : Number(retryAfter));
  if (error.code === 'invalid_parameter' && /active keys/.test(error.message)) throw new PortalRefusal(409, message);
  if (error.status === 400 || error.status === 404 || error.status === 409) throw new PortalRefusal(error.status, error.message);
  throw error;
}

/** Who made a change through the portal, for the audit trail: the account itself. */
function portalActor(accountId: string): string {
  return `portal:${accountId}`;
}
