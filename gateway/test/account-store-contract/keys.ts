import type { AccountRecords, KeyRecords, KeyResolutionStore } from '../../src/accounts/account-store';
import { generateApiKey, hashApiKey, newAccountId, newKeyId } from '../../src/keys/api-key';
import { aKey, anAccount } from '../support/account-records';
import { keyWithHash } from './store-under-test';

/** Keys: stored once under their id and their hash, listed by account. */
export function keysContract(store: AccountRecords & KeyRecords & KeyResolutionStore): void {
  describe('keys', () => {
    it('when a key is added, then it is found by id and by hash', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const key = aKey(account.id);
      await store.addKey(key);
      expect(await store.getKey(key.id)).toEqual(key);
      expect(await keyWithHash(store, key.hash)).toEqual(key);
    });

    it('when a key id or hash is unknown, then the lookups return null', async () => {
      expect(await store.getKey(newKeyId())).toBeNull();
      expect(await keyWithHash(store, hashApiKey(generateApiKey()))).toBeNull();
    });

    it('when a key with an existing id or hash is added, then it is refused', async () => {
      const key = aKey(newAccountId());
      await store.addKey(key);
      await expect(store.addKey({ ...key, hash: hashApiKey(generateApiKey()) })).rejects.toThrow(/exists/);
      await expect(store.addKey({ ...key, id: newKeyId() })).rejects.toThrow(/exists/);
      expect(await keyWithHash(store, key.hash)).toEqual(key);
    });

    it('when an account has keys, then listKeys gives all of them, revoked ones too, oldest first, and no other account\'s', async () => {
      const account = anAccount();
      const other = anAccount();
      await store.createAccount(account);
      await store.createAccount(other);
      const second = aKey(account.id, { createdAt: '2026-02-01T00:00:00.000Z' });
      const first = aKey(account.id, { createdAt: '2026-01-01T00:00:00.000Z' });
      await store.addKey(second);
      await store.addKey(first);
      await store.addKey(aKey(other.id));
      await store.revokeKey(first.id, '2026-03-01T00:00:00.000Z');
      expect(await store.listKeys(account.id)).toEqual([{ ...first, revokedAt: '2026-03-01T00:00:00.000Z' }, second]);
      expect(await store.listKeys(anAccount().id)).toEqual([]);
    });

    it('when a key carries its masked form, then it survives the round trip', async () => {
      const key = aKey(newAccountId(), { masked: 'ask_live_…Ab12' });
      await store.addKey(key);
      expect(await store.getKey(key.id)).toEqual(key);
      expect(await store.listKeys(key.accountId)).toEqual([key]);
    });
  });
}
