import type { AccountRecords, KeyRecords, KeyResolutionStore, PlanRecords } from '../../src/accounts/account-store';
import { generateApiKey, hashApiKey, newAccountId } from '../../src/keys/api-key';
import { aKey, anAccount } from '../support/account-records';

/** resolveKey: a key with its account and its plan, the one store call authentication makes. */
export function resolveKeyContract(store: AccountRecords & KeyRecords & KeyResolutionStore & PlanRecords): void {
  describe('resolveKey (authentication in one round trip)', () => {
    it('when a key is resolved by its hash, then it comes with its account and the plan with its built-in numbers', async () => {
      const account = anAccount({ plan: 'business' });
      await store.createAccount(account);
      const key = aKey(account.id);
      await store.addKey(key);
      expect(await store.resolveKey(key.hash)).toEqual({ key, account, plan: { name: 'business', perMinute: 1_000, perDay: 100_000 } });
    });

    it('when the plan was changed and the account has overrides, then both come back as stored', async () => {
      const account = anAccount({ plan: 'pro', perMinute: 7, email: 'a@example.com' });
      await store.createAccount(account);
      await store.setPlan({ name: 'pro', perMinute: 301, perDay: 10_001 });
      const key = aKey(account.id);
      await store.addKey(key);
      expect(await store.resolveKey(key.hash)).toEqual({ key, account, plan: { name: 'pro', perMinute: 301, perDay: 10_001 } });
    });

    it('when the hash is unknown, then null', async () => {
      expect(await store.resolveKey(hashApiKey(generateApiKey()))).toBeNull();
    });

    it('when the key is revoked, then it is still resolved, with its revocation time (the caller refuses it)', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const key = aKey(account.id);
      await store.addKey(key);
      await store.revokeKey(key.id, '2026-02-03T04:05:06.000Z');
      expect((await store.resolveKey(key.hash))?.key).toEqual({ ...key, revokedAt: '2026-02-03T04:05:06.000Z' });
    });

    it("when the key's account does not exist, then the key comes back with no account and no plan", async () => {
      const key = aKey(newAccountId());
      await store.addKey(key);
      expect(await store.resolveKey(key.hash)).toEqual({ key, account: null, plan: null });
    });

    it('when an enterprise account is resolved, then its own numbers come with a plan that has none', async () => {
      const account = anAccount({ plan: 'enterprise', perMinute: 5_000, perDay: 2_000_000 });
      await store.createAccount(account);
      const key = aKey(account.id);
      await store.addKey(key);
      expect(await store.resolveKey(key.hash)).toEqual({ key, account, plan: { name: 'enterprise', perMinute: null, perDay: null } });
    });
  });
}
