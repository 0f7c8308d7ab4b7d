import type { ApiKeyRecord } from '../../src/accounts/types';
import type { AccountRecords, ChangeFeed, KeyRecords, KeyResolutionStore } from '../../src/accounts/account-store';
import { newAccountId, newKeyId } from '../../src/keys/api-key';
import { aKey, anAccount } from '../support/account-records';
import { heard, recordChanges, keyWithHash } from './store-under-test';

/** A key's name, access level and expiry, and rolling it to a replacement in one atomic step. */
export function keyLifecycleContract(store: AccountRecords & ChangeFeed & KeyRecords & KeyResolutionStore): void {
  describe('key lifecycle: name, access, expiry, rolling', () => {
    const NOW = '2026-03-01T00:00:00.000Z';
    /** A key and its account, stored. */
    async function stored(overrides: Partial<ApiKeyRecord> = {}): Promise<ApiKeyRecord> {
      const account = anAccount();
      await store.createAccount(account);
      const key = aKey(account.id, overrides);
      await store.addKey(key);
      return key;
    }

    it('when a key carries a name, an access level and an expiry, then they survive every read, resolveKey included', async () => {
      const key = await stored({ name: 'Zoë\'s dashboard 🐾', access: 'read-only', expiresAt: '2026-06-30T12:00:00.000Z' });
      expect(await store.getKey(key.id)).toEqual(key);
      expect(await keyWithHash(store, key.hash)).toEqual(key);
      expect(await store.listKeys(key.accountId)).toEqual([key]);
      expect((await store.resolveKey(key.hash))?.key).toEqual(key);
    });

    it('when a key is stored without the lifecycle fields, then it reads back without them (read-write, never expiring, for its caller)', async () => {
      const key = await stored();
      const read = (await store.getKey(key.id))!;
      expect(read).toEqual(key);
      for (const field of ['name', 'access', 'expiresAt', 'replacedBy']) expect(read).not.toHaveProperty(field);
    });

    it('when a key is rolled, then its replacement is stored and found, and the old key expires at the end of the grace period, naming it', async () => {
      const old = await stored({ name: 'ci', access: 'read-only' });
      const replacement = aKey(old.accountId, { name: 'ci', access: 'read-only', createdAt: NOW });
      const { events } = recordChanges(store);
      const rolled = await store.rollKey({ keyId: old.id, replacement, expiresAt: '2026-03-02T00:00:00.000Z', at: NOW });
      const after = { ...old, expiresAt: '2026-03-02T00:00:00.000Z', replacedBy: replacement.id };
      expect(rolled).toEqual({ outcome: 'rolled', key: after });
      expect(await store.getKey(old.id)).toEqual(after);
      expect(await store.getKey(replacement.id)).toEqual(replacement);
      expect((await store.resolveKey(replacement.hash))?.key).toEqual(replacement);
      expect((await store.resolveKey(old.hash))?.key).toEqual(after);
      expect(await store.listKeys(old.accountId)).toEqual([old, replacement].map((key) => (key.id === old.id ? after : key)));
      // Every replica hears both: the replacement as added (it touches no valid cached key), the old key as changed.
      await heard(events, [
        { type: 'key-added', keyId: replacement.id, hash: replacement.hash },
        { type: 'key', keyId: old.id, hash: old.hash },
      ]);
    });

    it('when a key that already expires before the grace period ends is rolled, then its own expiry stands', async () => {
      const old = await stored({ expiresAt: '2026-03-01T06:00:00.000Z' });
      const rolled = await store.rollKey({ keyId: old.id, replacement: aKey(old.accountId), expiresAt: '2026-03-02T00:00:00.000Z', at: NOW });
      expect(rolled.key?.expiresAt).toBe('2026-03-01T06:00:00.000Z');
    });

    it.each([
      ['revoked', { revokedAt: '2026-02-01T00:00:00.000Z' }],
      ['replaced', { replacedBy: 'key_00000000000000000009' }],
      ['expired', { expiresAt: NOW }],
    ] as const)('when a %s key is rolled, then it is refused as such and nothing is written', async (outcome, overrides) => {
      const old = await stored(overrides);
      const replacement = aKey(old.accountId);
      expect(await store.rollKey({ keyId: old.id, replacement, expiresAt: '2026-03-02T00:00:00.000Z', at: NOW })).toEqual({ outcome, key: old });
      expect(await store.getKey(old.id)).toEqual(old);
      expect(await store.getKey(replacement.id)).toBeNull();
      expect(await keyWithHash(store, replacement.hash)).toBeNull();
      expect(await store.listKeys(old.accountId)).toEqual([old]);
    });

    it('when an unknown key is rolled, then it is refused as unknown and nothing is written', async () => {
      const replacement = aKey(newAccountId());
      expect(await store.rollKey({ keyId: newKeyId(), replacement, expiresAt: '2026-03-02T00:00:00.000Z', at: NOW })).toEqual({ outcome: 'unknown', key: null });
      expect(await store.getKey(replacement.id)).toBeNull();
    });

    it('when the replacement collides with a key or belongs to another account, then the roll is refused and nothing is written', async () => {
      const old = await stored();
      const other = await stored();
      const roll = (replacement: ApiKeyRecord) => store.rollKey({ keyId: old.id, replacement, expiresAt: '2026-03-02T00:00:00.000Z', at: NOW });
      await expect(roll(aKey(old.accountId, { hash: other.hash }))).rejects.toThrow(/exists/);
      await expect(roll(aKey(old.accountId, { id: other.id }))).rejects.toThrow(/exists/);
      await expect(roll(aKey(other.accountId))).rejects.toThrow(/another account/);
      expect(await store.getKey(old.id)).toEqual(old);
      expect(await store.listKeys(old.accountId)).toEqual([old]);
    });
  });
}
