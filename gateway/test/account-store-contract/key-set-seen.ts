import { KeySetChangedError } from '../../src/accounts/errors';
import type { AccountRecords, KeyRecords, KeyResolutionStore } from '../../src/accounts/account-store';
import { aKey, anAccount } from '../support/account-records';
import { keyWithHash } from './store-under-test';

/**
 * A key written only if the account's key-set version is still the one the caller read, in the
 * write's own atomic step: what keeps the key limits whole when replicas create keys at once.
 */
export function keySetSeenContract(store: AccountRecords & KeyRecords & KeyResolutionStore): void {
  describe('key writes conditional on the key-set version read', () => {
    const EARLY = '2026-01-01T00:00:00.000Z';
    const LATE = '2026-02-01T00:00:00.000Z';

    it('when keys are added to an account, then its version counts them, from 0, and no other account\'s', async () => {
      const [account, other] = [anAccount(), anAccount()];
      await store.createAccount(account);
      await store.createAccount(other);
      expect(await store.keySetVersion(account.id)).toBe(0);
      await store.addKey(aKey(account.id));
      await store.addKey(aKey(account.id), { version: 1 });
      await store.addKey(aKey(other.id));
      expect(await store.keySetVersion(account.id)).toBe(2);
      expect(await store.keySetVersion(other.id)).toBe(1);
    });

    it('when a caller writes with the version it read, then the key is added; with a version another write made stale, it is refused and nothing is written', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const read = { version: await store.keySetVersion(account.id) };
      const first = aKey(account.id);
      await store.addKey(first, read);
      const second = aKey(account.id);
      await expect(store.addKey(second, read)).rejects.toBeInstanceOf(KeySetChangedError);
      expect(await store.getKey(second.id)).toBeNull();
      expect(await keyWithHash(store, second.hash)).toBeNull();
      expect((await store.listKeys(account.id)).map((key) => key.id)).toEqual([first.id]);
      expect(await store.keySetVersion(account.id)).toBe(1);
    });

    it('when the other write made a key that looks older (another replica\'s clock behind), then the stale write is still refused', async () => {
      const account = anAccount();
      await store.createAccount(account);
      await store.addKey(aKey(account.id, { createdAt: LATE }));
      const read = { version: await store.keySetVersion(account.id) };
      await store.addKey(aKey(account.id, { createdAt: EARLY }), read);
      await expect(store.addKey(aKey(account.id, { createdAt: EARLY }), read)).rejects.toBeInstanceOf(KeySetChangedError);
    });

    it('when a revoked key is removed, then the version stays: only additions make a read stale', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const key = aKey(account.id);
      await store.addKey(key);
      await store.revokeKey(key.id, LATE);
      await store.pruneRetiredKeys(account.id, LATE, { retiredKept: 0, retiredRetentionMs: 0 });
      expect(await store.getKey(key.id)).toBeNull();
      expect(await store.keySetVersion(account.id)).toBe(1);
      const next = aKey(account.id);
      await store.addKey(next, { version: 1 });
      expect(await store.getKey(next.id)).toEqual(next);
    });

    it('when a roll is asked with a stale version, then it is refused and neither key changes; with the current one, it rolls and counts one more', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const old = aKey(account.id, { createdAt: EARLY });
      await store.addKey(old);
      const stale = { version: await store.keySetVersion(account.id) };
      await store.addKey(aKey(account.id, { createdAt: LATE }));
      const replacement = aKey(account.id);
      const roll = { keyId: old.id, replacement, expiresAt: '2026-03-02T00:00:00.000Z', at: '2026-03-01T00:00:00.000Z' };
      await expect(store.rollKey({ ...roll, seen: stale })).rejects.toBeInstanceOf(KeySetChangedError);
      expect(await store.getKey(old.id)).toEqual(old);
      expect(await store.getKey(replacement.id)).toBeNull();
      expect((await store.rollKey({ ...roll, seen: { version: 2 } })).outcome).toBe('rolled');
      expect(await store.keySetVersion(account.id)).toBe(3);
    });
  });
}
