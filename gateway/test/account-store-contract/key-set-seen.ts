import { KeySetChangedError } from '../../src/accounts/errors';
import { newestKeyId, type AccountStore } from '../../src/accounts/types';
import { aKey, anAccount } from '../support/account-records';

/**
 * A key written only if the account's keys are as the caller saw them (`seen`: its newest key), in
 * the write's own atomic step: what keeps the key limits whole when replicas create keys at once.
 */
export function keySetSeenContract(store: AccountStore): void {
  describe('key writes conditional on the keys seen', () => {
    const EARLY = '2026-01-01T00:00:00.000Z';
    const LATE = '2026-02-01T00:00:00.000Z';

    it('when the account has no key and the caller saw none, then the key is added; once it has one, a caller who saw none is refused and nothing is written', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const first = aKey(account.id);
      await store.addKey(first, { newestKeyId: '' });
      const late = aKey(account.id);
      await expect(store.addKey(late, { newestKeyId: '' })).rejects.toBeInstanceOf(KeySetChangedError);
      expect(await store.getKey(late.id)).toBeNull();
      expect(await store.findKeyByHash(late.hash)).toBeNull();
      expect((await store.listKeys(account.id)).map((key) => key.id)).toEqual([first.id]);
    });

    it('when the caller saw the newest key, then the key is added; when it saw an older one, it is refused', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const older = aKey(account.id, { createdAt: EARLY });
      const newer = aKey(account.id, { createdAt: LATE });
      await store.addKey(newer);
      await store.addKey(older);
      await expect(store.addKey(aKey(account.id), { newestKeyId: older.id })).rejects.toBeInstanceOf(KeySetChangedError);
      await store.addKey(aKey(account.id, { createdAt: LATE.replace('02-01', '03-01') }), { newestKeyId: newer.id });
      expect(await store.listKeys(account.id)).toHaveLength(3);
    });

    it('when two keys were created in the same millisecond, then the greater id is the newer, as newestKeyId says', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const twins = [aKey(account.id, { createdAt: EARLY }), aKey(account.id, { createdAt: EARLY })];
      for (const key of twins) await store.addKey(key);
      const newest = newestKeyId(twins);
      expect(newest).toBe(twins.map((key) => key.id).sort()[1]);
      const lesser = twins.find((key) => key.id !== newest)!;
      await expect(store.addKey(aKey(account.id), { newestKeyId: lesser.id })).rejects.toBeInstanceOf(KeySetChangedError);
      await store.addKey(aKey(account.id), { newestKeyId: newest });
    });

    it('when the newest key was removed (revoked, then removed), then the one before it is the newest', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const older = aKey(account.id, { createdAt: EARLY });
      const newer = aKey(account.id, { createdAt: LATE });
      await store.addKey(older);
      await store.addKey(newer);
      await store.revokeKey(newer.id, LATE);
      await store.removeRevokedKey(newer.id);
      await store.addKey(aKey(account.id), { newestKeyId: older.id });
    });

    it('when a roll is asked with a stale view of the keys, then it is refused and neither key changes; with the newest, it rolls', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const old = aKey(account.id, { createdAt: EARLY });
      const other = aKey(account.id, { createdAt: LATE });
      await store.addKey(old);
      await store.addKey(other);
      const replacement = aKey(account.id);
      const roll = { keyId: old.id, replacement, expiresAt: '2026-03-02T00:00:00.000Z', at: '2026-03-01T00:00:00.000Z' };
      await expect(store.rollKey({ ...roll, seen: { newestKeyId: old.id } })).rejects.toBeInstanceOf(KeySetChangedError);
      expect(await store.getKey(old.id)).toEqual(old);
      expect(await store.getKey(replacement.id)).toBeNull();
      expect((await store.rollKey({ ...roll, seen: { newestKeyId: other.id } })).outcome).toBe('rolled');
    });
  });
}
