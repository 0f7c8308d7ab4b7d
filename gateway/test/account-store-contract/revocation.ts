import type { KeyRecords, KeyResolutionStore } from '../../src/accounts/account-store';
import { newAccountId, newKeyId } from '../../src/keys/api-key';
import { aKey } from '../support/account-records';
import { keyWithHash } from './store-under-test';

/**
 * Revoking keys (removing them is retired-keys.ts's). "The first revocation wins" (AccountStore.revokeKey) is each store's
 * own atomic step (a JS check in the in-process store, a Lua check in Redis's script); it is
 * checked here, once for all of them.
 */
export function revocationContract(store: KeyRecords & KeyResolutionStore): void {
  describe('key revocation', () => {
    it('when a key is revoked, then it reads back with the revocation time and revokeKey says true', async () => {
      const key = aKey(newAccountId());
      await store.addKey(key);
      expect(await store.revokeKey(key.id, '2026-02-03T04:05:06.000Z')).toBe(true);
      expect(await store.getKey(key.id)).toEqual({ ...key, revokedAt: '2026-02-03T04:05:06.000Z' });
      expect((await keyWithHash(store, key.hash))?.revokedAt).toBe('2026-02-03T04:05:06.000Z');
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
  });
}
