import type { AccountStore } from '../../src/accounts/types';
import { newAccountId, newKeyId } from '../../src/keys/api-key';
import { aKey, anAccount } from '../support/account-records';
import { heard, recordChanges } from './store-under-test';

/**
 * Revoking and removing keys. "The first revocation wins" (AccountStore.revokeKey) is each store's
 * own atomic step (a JS check in the in-process store, a Lua check in Redis's script); it is
 * checked here, once for all of them.
 */
export function revocationContract(store: AccountStore): void {
  describe('key revocation and removal', () => {
    it('when a key is revoked, then it reads back with the revocation time and revokeKey says true', async () => {
      const key = aKey(newAccountId());
      await store.addKey(key);
      expect(await store.revokeKey(key.id, '2026-02-03T04:05:06.000Z')).toBe(true);
      expect(await store.getKey(key.id)).toEqual({ ...key, revokedAt: '2026-02-03T04:05:06.000Z' });
      expect((await store.findKeyByHash(key.hash))?.revokedAt).toBe('2026-02-03T04:05:06.000Z');
    });

    it('when a revoked key is revoked again, then it still succeeds and keeps the first time', async () => {
      const key = aKey(newAccountId());
      await store.addKey(key);
      await store.revokeKey(key.id, '2026-02-03T04:05:06.000Z');
      expect(await store.revokeKey(key.id, '2027-01-01T00:00:00.000Z')).toBe(true);
      expect((await store.getKey(key.id))?.revokedAt).toBe('2026-02-03T04:05:06.000Z');
    });

    it('when an unknown key is revoked, then revokeKey says false and creates nothing', async () => {
      const id = newKeyId();
      expect(await store.revokeKey(id, '2026-02-03T04:05:06.000Z')).toBe(false);
      expect(await store.getKey(id)).toBeNull();
    });

    it('when one account has several keys, then revoking one leaves the others active', async () => {
      const accountId = newAccountId();
      const [first, second] = [aKey(accountId), aKey(accountId)];
      await store.addKey(first);
      await store.addKey(second);
      await store.revokeKey(first.id, '2026-02-03T04:05:06.000Z');
      expect((await store.getKey(second.id))?.revokedAt).toBeNull();
    });

    it('when a revoked key is removed, then it is gone everywhere (record, hash, listing, last use) and a change is announced; an active or unknown one is not removed', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const [kept, removed] = [aKey(account.id, { createdAt: '2026-01-01T00:00:00.000Z' }), aKey(account.id)];
      await store.addKey(kept);
      await store.addKey(removed);
      await store.recordKeyUse(new Map([[removed.id, 5_000]]));
      expect(await store.removeRevokedKey(removed.id)).toBe(false);
      await store.revokeKey(removed.id, '2026-02-03T04:05:06.000Z');
      const { events, stop } = recordChanges(store);
      expect(await store.removeRevokedKey(removed.id)).toBe(true);
      await heard(events, [{ type: 'key', keyId: removed.id, hash: removed.hash }]);
      stop();
      expect(await store.getKey(removed.id)).toBeNull();
      expect(await store.findKeyByHash(removed.hash)).toBeNull();
      expect(await store.resolveKey(removed.hash)).toBeNull();
      expect(await store.listKeys(account.id)).toEqual([kept]);
      expect(await store.keysLastUsed([removed.id])).toEqual(new Map());
      expect(await store.removeRevokedKey(removed.id)).toBe(false);
      expect(await store.removeRevokedKey(kept.id)).toBe(false);
      expect(await store.getKey(kept.id)).toEqual(kept);
    });
  });
}
