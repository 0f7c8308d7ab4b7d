import type { Account, ApiKeyRecord } from '../../src/accounts/types';
import { generateApiKey, hashApiKey, newAccountId, newKeyId } from '../../src/keys/api-key';

/** An account as a store holds it, with a fresh id: Acme Pets on Pro, no overrides, no email, unless `overrides` says otherwise. */
export const anAccount = (overrides: Partial<Account> = {}): Account => ({
  id: newAccountId(),
  name: 'Acme Pets',
  plan: 'pro',
  perMinute: null,
  perDay: null,
  email: null,
  createdAt: '2026-01-02T03:04:05.000Z',
  ...overrides,
});

/** An active key of `accountId` as a store holds it, with a fresh id and the hash of a fresh key. */
export const aKey = (accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: newKeyId(),
  accountId,
  hash: hashApiKey(generateApiKey()),
  createdAt: '2026-01-02T03:04:05.000Z',
  revokedAt: null,
  ...overrides,
});
