import { generateApiKey, hashApiKey, newAccountId, newKeyId } from '../src/keys/api-key';
import { BUILT_IN_PLANS, type Account, type AccountPosition, type AccountQuery, type AccountStore, type ApiKeyRecord, type ChangeEvent } from '../src/accounts/types';
import { normaliseSearch } from '../src/accounts/search';
import { waitFor } from '../../test/helpers/ports';

/**
 * The behaviour every AccountStore must have. Run by account-store.test.ts against the
 * in-process store and the Redis store, so the two cannot drift apart.
 * `open` gives a fresh, empty store; the suite closes it after each test.
 */
export function accountStoreContract(name: string, open: () => Promise<AccountStore>): void {
  describe(`${name} (AccountStore contract)`, () => {
    let store: AccountStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    const anAccount = (overrides: Partial<Account> = {}): Account => ({
      id: newAccountId(),
      name: 'Acme Pets',
      plan: 'pro',
      perMinute: null,
      perDay: null,
      email: null,
      createdAt: '2026-01-02T03:04:05.000Z',
      ...overrides,
    });

    const aKey = (accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
      id: newKeyId(),
      accountId,
      hash: hashApiKey(generateApiKey()),
      createdAt: '2026-01-02T03:04:05.000Z',
      revokedAt: null,
      ...overrides,
    });

    function record(): { events: ChangeEvent[]; stop: () => void } {
      const events: ChangeEvent[] = [];
      const stop = store.onChange((event) => events.push(event));
      return { events, stop };
    }

    const heard = (events: ChangeEvent[], expected: ChangeEvent[]) =>
      waitFor(() => expected.every((event) => events.some((seen) => JSON.stringify(seen) === JSON.stringify(event))), 2_000, JSON.stringify(expected));

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

      it('when a revoked key is removed, then it is gone everywhere (record, hash, listing, last use) and a change is announced; an active or unknown one is not removed', async () => {
        const account = anAccount();
        await store.createAccount(account);
        const [kept, removed] = [aKey(account.id, { createdAt: '2026-01-01T00:00:00.000Z' }), aKey(account.id)];
        await store.addKey(kept);
        await store.addKey(removed);
        await store.recordKeyUse(new Map([[removed.id, 5_000]]));
        expect(await store.removeRevokedKey(removed.id)).toBe(false);
        await store.revokeKey(removed.id, '2026-02-03T04:05:06.000Z');
        const { events, stop } = record();
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

      it('when one account has several keys, then revoking one leaves the others active', async () => {
        const accountId = newAccountId();
        const [first, second] = [aKey(accountId), aKey(accountId)];
        await store.addKey(first);
        await store.addKey(second);
        await store.revokeKey(first.id, '2026-02-03T04:05:06.000Z');
        expect((await store.getKey(second.id))?.revokedAt).toBeNull();
      });
    });

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
        expect(await store.findKeyByHash(key.hash)).toEqual(key);
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
        const { events } = record();
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
        expect(await store.findKeyByHash(replacement.hash)).toBeNull();
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

    describe('plans', () => {
      it('when nothing was changed, then the four built-in plans are listed in order', async () => {
        expect(await store.listPlans()).toEqual(BUILT_IN_PLANS);
        expect(await store.getPlan('enterprise')).toEqual({ name: 'enterprise', perMinute: null, perDay: null });
        expect(await store.getPlan('free')).toEqual({ name: 'free', perMinute: 60, perDay: 1_000 });
      });

      it('when a plan is set, then it replaces the built-in numbers and the others stay', async () => {
        await store.setPlan({ name: 'pro', perMinute: 500, perDay: 20_000 });
        expect(await store.getPlan('pro')).toEqual({ name: 'pro', perMinute: 500, perDay: 20_000 });
        const plans = await store.listPlans();
        expect(plans.map((plan) => plan.name)).toEqual(['free', 'pro', 'business', 'enterprise']);
        expect(plans[1]).toEqual({ name: 'pro', perMinute: 500, perDay: 20_000 });
        expect(plans[0]).toEqual(BUILT_IN_PLANS[0]);
      });

      it('when a returned plan is mutated, then the stored one does not change', async () => {
        const plan = await store.getPlan('free');
        plan.perMinute = 1;
        (await store.listPlans())[0]!.perDay = 1;
        expect(await store.getPlan('free')).toEqual(BUILT_IN_PLANS[0]);
      });
    });

    describe('change events', () => {
      it('when accounts, keys and plans are written, then listeners hear one event per write, in order', async () => {
        const { events } = record();
        const account = anAccount();
        const key = aKey(account.id);
        await store.createAccount(account);
        await store.updateAccount({ ...account, perMinute: 7 });
        await store.addKey(key);
        await store.revokeKey(key.id, '2026-02-03T04:05:06.000Z');
        await store.setPlan({ name: 'business', perMinute: 2_000, perDay: 200_000 });
        const expected: ChangeEvent[] = [
          { type: 'account-created', accountId: account.id },
          { type: 'account', accountId: account.id },
          { type: 'key-added', keyId: key.id, hash: key.hash },
          { type: 'key', keyId: key.id, hash: key.hash },
          { type: 'plan', plan: 'business' },
        ];
        await heard(events, expected);
        expect(events).toEqual(expected);
      });

      it('when a write is refused, then no event is published', async () => {
        const account = anAccount();
        const { events } = record();
        await store.createAccount(account);
        await heard(events, [{ type: 'account-created', accountId: account.id }]); // may arrive late from Redis: wait, then start afresh
        events.length = 0;
        await expect(store.createAccount(account)).rejects.toThrow();
        await expect(store.updateAccount(anAccount())).rejects.toThrow();
        await store.revokeKey(newKeyId(), '2026-02-03T04:05:06.000Z');
        await store.setPlan({ name: 'free', perMinute: 61, perDay: 1_001 }); // a marker: everything before it has been delivered
        await heard(events, [{ type: 'plan', plan: 'free' }]);
        expect(events).toEqual([{ type: 'plan', plan: 'free' }]);
      });

      it('when an event is announced, then every listener hears it', async () => {
        const { events } = record();
        const event = { type: 'ban-lifted', accountId: 'acct_00000000000000000001', keyId: 'key_00000000000000000001' } as const;
        await store.announce(event);
        await heard(events, [event]);
      });

      it('when two listeners subscribe and one unsubscribes, then only the other keeps hearing', async () => {
        const first = record();
        const second = record();
        await store.setPlan({ name: 'free', perMinute: 61, perDay: 1_001 });
        await heard(first.events, [{ type: 'plan', plan: 'free' }]);
        await heard(second.events, [{ type: 'plan', plan: 'free' }]);
        first.stop();
        await store.setPlan({ name: 'pro', perMinute: 301, perDay: 10_001 });
        await heard(second.events, [{ type: 'plan', plan: 'pro' }]);
        expect(first.events).toEqual([{ type: 'plan', plan: 'free' }]);
      });

      it('when a listener throws, then the write still succeeds and other listeners still hear it', async () => {
        store.onChange(() => {
          throw new Error('listener bug');
        });
        const { events } = record();
        await store.setPlan({ name: 'free', perMinute: 61, perDay: 1_001 });
        await heard(events, [{ type: 'plan', plan: 'free' }]);
      });
    });
  });
}
