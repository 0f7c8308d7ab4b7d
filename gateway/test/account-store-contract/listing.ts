import type { Account, AccountPosition, AccountQuery } from '../../src/accounts/types';
import type { AccountRecords } from '../../src/accounts/account-store';
import { normaliseSearch } from '../../src/accounts/search';
import { anAccount } from '../support/account-records';

/** Listing accounts: paged in creation order, filtered by plan, searched by name or email. */
export function listingContract(store: AccountRecords): void {
  describe('listing accounts', () => {
    /** Accounts created one second apart, in this order, so creation order is list order. */
    async function createInOrder(specs: Partial<Account>[]): Promise<Account[]> {
      const accounts = specs.map((spec, i) => anAccount({ createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), ...spec }));
      // Written in reverse: the order must come from createdAt, not from the order of writes.
      for (const account of [...accounts].reverse()) await store.createAccount(account);
      return accounts;
    }

    async function everyPage(query: Omit<AccountQuery, 'after'>): Promise<Account[][]> {
      const pages: Account[][] = [];
      let after: AccountPosition | undefined;
      for (;;) {
        const page = await store.listAccounts({ ...query, ...(after ? { after } : {}) });
        pages.push(page.accounts);
        if (!page.next) return pages;
        after = page.next;
      }
    }

    it('when there are no accounts, then the page is empty and has no next', async () => {
      expect(await store.listAccounts({ limit: 20 })).toEqual({ accounts: [], next: null });
    });

    it('when accounts are paged, then every one comes once, oldest first, with a next position only while more remain', async () => {
      const accounts = await createInOrder(Array.from({ length: 7 }, (_, i) => ({ name: `Account ${i}` })));
      const pages = await everyPage({ limit: 3 });
      expect(pages.map((page) => page.map((account) => account.name))).toEqual([
        ['Account 0', 'Account 1', 'Account 2'],
        ['Account 3', 'Account 4', 'Account 5'],
        ['Account 6'],
      ]);
      expect(pages.flat()).toEqual(accounts);
      const exact = await store.listAccounts({ limit: 7 });
      expect(exact.next).toBeNull();
      expect(exact.accounts).toHaveLength(7);
    });

    it('when several accounts share a creation time, then they are ordered by id and paging neither skips nor repeats', async () => {
      const at = '2026-05-05T05:05:05.005Z';
      const accounts = Array.from({ length: 5 }, () => anAccount({ createdAt: at }));
      for (const account of accounts) await store.createAccount(account);
      const listed = (await everyPage({ limit: 2 })).flat().map((account) => account.id);
      expect(listed).toEqual(accounts.map((account) => account.id).sort());
    });

    it('when filtered by plan, then only that plan\'s accounts come, and a plan change moves an account between filters', async () => {
      const [a, b, c] = await createInOrder([{ plan: 'free' }, { plan: 'pro' }, { plan: 'free' }]);
      expect((await store.listAccounts({ limit: 10, plan: 'free' })).accounts.map((x) => x.id)).toEqual([a!.id, c!.id]);
      await store.updateAccount({ ...a!, plan: 'pro' });
      expect((await store.listAccounts({ limit: 10, plan: 'free' })).accounts.map((x) => x.id)).toEqual([c!.id]);
      expect((await store.listAccounts({ limit: 10, plan: 'pro' })).accounts.map((x) => x.id)).toEqual([a!.id, b!.id]);
      expect((await store.listAccounts({ limit: 10, plan: 'enterprise' })).accounts).toEqual([]);
      expect((await store.listAccounts({ limit: 10 })).accounts.map((x) => x.id)).toEqual([a!.id, b!.id, c!.id]);
    });

    it('when searched, then the text matches inside the name or the email without regard to case, Unicode included', async () => {
      const [acme, zoe, other] = await createInOrder([
        { name: 'ACME Pets' },
        { name: 'Zoë Ünïcødé', email: 'Zoe@Example.COM' },
        { name: 'Other', email: 'ops@acme.example' },
      ]);
      const ids = async (search: string, plan?: Account['plan']) =>
        (await store.listAccounts({ limit: 10, search: normaliseSearch(search), ...(plan ? { plan } : {}) })).accounts.map((x) => x.id);
      expect(await ids('acme')).toEqual([acme!.id, other!.id]);
      expect(await ids('ZOË ÜN')).toEqual([zoe!.id]);
      expect(await ids('example.com')).toEqual([zoe!.id]);
      expect(await ids('pets\nzoe')).toEqual([]);
      expect(await ids('%')).toEqual([]);
      expect(await ids('.')).toEqual([zoe!.id, other!.id]);
      expect(await ids('acme', 'free')).toEqual([]);
    });

    it('when a renamed account is searched, then it is found by its new name only', async () => {
      const [account] = await createInOrder([{ name: 'Old Name' }]);
      await store.updateAccount({ ...account!, name: 'New Name' });
      expect((await store.listAccounts({ limit: 10, search: 'old' })).accounts).toEqual([]);
      expect((await store.listAccounts({ limit: 10, search: 'new' })).accounts.map((x) => x.id)).toEqual([account!.id]);
    });

    it('when a search matches only a few of many accounts, then the pages hold the matches and end where they end', async () => {
      const specs = Array.from({ length: 40 }, (_, i) => ({ name: i % 10 === 3 ? `Needle ${i}` : `Hay ${i}` }));
      await createInOrder(specs);
      const pages = await everyPage({ limit: 2, search: 'needle' });
      expect(pages.map((page) => page.map((account) => account.name))).toEqual([['Needle 3', 'Needle 13'], ['Needle 23', 'Needle 33']]);
    });
  });
}
