import type { AccountStore } from '../../src/accounts/types';
import { generateApiKey, hashApiKey, newAccountId, newKeyId } from '../../src/keys/api-key';
import { aKey, anAccount } from '../support/account-records';

/** Keys: stored once under their id and their hash, listed by account, and when each was last used. */
export function keysContract(store: AccountStore): void {
  describe('keys', () => {
    it('when a key is added, then it is found by id and by hash', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const key = aKey(account.id);
      await store.addKey(key);
      expect(await store.getKey(key.id)).toEqual(key);
      expect(await store.findKeyByHash(key.hash)).toEqual(key);
    });

    it('when a key id or hash is unknown, then the lookups return null', async () => {
      expect(await store.getKey(newKeyId())).toBeNull();
      expect(await store.findKeyByHash(hashApiKey(generateApiKey()))).toBeNull();
    });

    it('when a key with an existing id or hash is added, then it is refused', async () => {
      const key = aKey(newAccountId());
      await store.addKey(key);
      await expect(store.addKey({ ...key, hash: hashApiKey(generateApiKey()) })).rejects.toThrow(/exists/);
      await expect(store.addKey({ ...key, id: newKeyId() })).rejects.toThrow(/exists/);
      expect(await store.findKeyByHash(key.hash)).toEqual(key);
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

    it('when key uses are recorded, then the latest time of each is kept, an earlier one changing nothing', async () => {
      const [first, second, never] = [newKeyId(), newKeyId(), newKeyId()];
      await store.recordKeyUse(new Map([[first, 2_000], [second, 5_000]]));
      await store.recordKeyUse(new Map([[first, 3_000], [second, 4_000]]));
      expect(await store.keysLastUsed([first, second, never])).toEqual(new Map([[first, 3_000], [second, 5_000]]));
      expect(await store.keysLastUsed([])).toEqual(new Map());
    });
  });
}
