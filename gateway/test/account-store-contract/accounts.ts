import type { AccountRecords } from '../../src/accounts/account-store';
import { newAccountId } from '../../src/keys/api-key';
import { anAccount } from '../support/account-records';

/** Accounts: created once, read back whole, updated only when they exist, never shared with the caller. */
export function accountsContract(store: AccountRecords): void {
  describe('accounts', () => {
    it('when an account is created, then it reads back equal, null overrides included', async () => {
      const account = anAccount();
      await store.createAccount(account);
      expect(await store.getAccount(account.id)).toEqual(account);
    });

    it('when an account has overrides, an email and a non-ASCII name, then all survive the round trip', async () => {
      const account = anAccount({ email: 'zoë@example.com', name: 'Ünïcødé 🐾 Pets', plan: 'enterprise', perMinute: 5_000, perDay: 1_000_000_000 });
      await store.createAccount(account);
      expect(await store.getAccount(account.id)).toEqual(account);
    });

    it('when an id is unknown, then getAccount returns null', async () => {
      expect(await store.getAccount(newAccountId())).toBeNull();
    });

    it('when an account id is created twice, then the second create is refused and the first stays', async () => {
      const account = anAccount();
      await store.createAccount(account);
      await expect(store.createAccount({ ...account, name: 'Other' })).rejects.toThrow(/exists/);
      expect((await store.getAccount(account.id))?.name).toBe('Acme Pets');
    });

    it('when an account is updated, then the new values read back', async () => {
      const account = anAccount({ perMinute: 10 });
      await store.createAccount(account);
      const updated = { ...account, plan: 'business' as const, perMinute: null, perDay: 99 };
      await store.updateAccount(updated);
      expect(await store.getAccount(account.id)).toEqual(updated);
    });

    it('when an unknown account is updated, then the update is refused and nothing is created', async () => {
      const account = anAccount();
      await expect(store.updateAccount(account)).rejects.toThrow(/does not exist/);
      expect(await store.getAccount(account.id)).toBeNull();
    });

    it('when a returned account is mutated, then the stored one does not change', async () => {
      const account = anAccount();
      await store.createAccount(account);
      const copy = (await store.getAccount(account.id))!;
      copy.name = 'mutated';
      account.name = 'mutated too';
      expect((await store.getAccount(account.id))?.name).toBe('Acme Pets');
    });
  });
}
