import { aKey } from './support/account-records';
import { describeOnEachStack } from './support/ops-api';

/** An account's keys as operators see them: masked, with their times and bans, never the key; paged like the other listings. */

describeOnEachStack('GET /admin/accounts/{id}/keys', (ops) => {
  const { auth, createAccount, createKey, expectInvalid, traffic } = ops;

  /** The lifecycle fields of a key created without any (see key-lifecycle.test.ts). */
  const neverRolled = { name: null, access: 'read-write', expiresAt: null, replacedBy: null };

  it('when an account has keys, then each shows id, a masked form, times and ban, and never the key or its hash', async () => {
    const account = await createAccount({ name: 'Keyed', plan: 'free' });
    const used = await createKey(account.id);
    const revoked = await createKey(account.id);
    const fresh = await createKey(account.id);
    expect((await ops.api.delete(`/admin/keys/${revoked.id}`).set(auth)).status).toBe(204);
    const beforeUse = Date.now();
    await traffic(account.id, used.id, { perMinute: 1, perDay: 100 }, 4); // accepted, limited, limited, banned

    const res = await ops.api.get(`/admin/accounts/${account.id}/keys`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        ...neverRolled,
        id: used.id,
        masked: `ask_live_…${used.key.slice(-4)}`,
        createdAt: expect.any(String),
        revokedAt: null,
        lastUsedAt: expect.any(String),
        bannedUntil: expect.any(String),
      },
      { ...neverRolled, id: revoked.id, masked: `ask_live_…${revoked.key.slice(-4)}`, createdAt: expect.any(String), revokedAt: expect.any(String), lastUsedAt: null, bannedUntil: null },
      { ...neverRolled, id: fresh.id, masked: `ask_live_…${fresh.key.slice(-4)}`, createdAt: expect.any(String), revokedAt: null, lastUsedAt: null, bannedUntil: null },
    ]);
    expect(Date.parse(res.body[0].lastUsedAt)).toBeGreaterThanOrEqual(beforeUse - 1);
    expect(Date.parse(res.body[0].bannedUntil)).toBeGreaterThan(Date.now() + 800_000);
    for (const key of [used, revoked, fresh]) expect(res.text).not.toContain(key.key.slice(9, -4));
    expect(res.text).not.toMatch(/[0-9a-f]{64}/);

    expect((await ops.api.delete(`/admin/keys/${used.id}/ban`).set(auth)).status).toBe(204);
    expect((await ops.api.get(`/admin/accounts/${account.id}/keys`).set(auth)).body[0].bannedUntil).toBeNull();
  });

  it('when the account does not exist, then 404 not_found; when it has no keys, then an empty array', async () => {
    expect((await ops.api.get('/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA/keys').set(auth)).status).toBe(404);
    const account = await createAccount({ name: 'Keyless', plan: 'free' });
    expect((await ops.api.get(`/admin/accounts/${account.id}/keys`).set(auth)).body).toEqual([]);
  });

  /** The next page's reference in a listing's Link header, or undefined on the last page. */
  const nextOf = (link: string | undefined) => (link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1]);

  it('when an account has more keys than a page, then 20 come oldest first and Link gives the next page, relative (issue 24: listings were not paged)', async () => {
    const account = await createAccount({ name: 'Many keys', plan: 'free' });
    // More than a day's creations allow: written behind the API's back, a second apart.
    const keys = Array.from({ length: 23 }, (_, i) => aKey(account.id, { createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() }));
    for (const key of keys) await ops.stack.store.addKey(key);
    const first = await ops.api.get(`/admin/accounts/${account.id}/keys`).set(auth);
    expect(first.status).toBe(200);
    expect(first.body.map((key: { id: string }) => key.id)).toEqual(keys.slice(0, 20).map((key) => key.id));
    const next = nextOf(first.headers.link);
    expect(next).toMatch(new RegExp(`^/admin/accounts/${account.id}/keys\\?cursor=[A-Za-z0-9_-]+$`));
    const second = await ops.api.get(next!).set(auth);
    expect(second.body.map((key: { id: string }) => key.id)).toEqual(keys.slice(20).map((key) => key.id));
    expect(second.headers.link).toBeUndefined();
  });

  it('when a limit is given, then each page holds that many and Link keeps it, to the last page', async () => {
    const account = await createAccount({ name: 'Paged', plan: 'free' });
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await createKey(account.id));
    const seen: string[] = [];
    let path: string | undefined = `/admin/accounts/${account.id}/keys?limit=2`;
    const sizes = [];
    while (path !== undefined) {
      const page = await ops.api.get(path).set(auth);
      expect(page.status).toBe(200);
      sizes.push(page.body.length);
      seen.push(...page.body.map((key: { id: string }) => key.id));
      path = nextOf(page.headers.link);
      if (path !== undefined) expect(path).toMatch(/\?limit=2&cursor=/);
    }
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual(created.map((key) => key.id));
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['cursor=nonsense', 'cursor'],
    ['cursor=', 'cursor'],
    [`cursor=${Buffer.from('a.1.acct_AAAAAAAAAAAAAAAAAAAA').toString('base64url')}`, 'cursor'],
    ['sort=name', 'sort'],
  ])('when the query has %s, then 400 invalid_parameter naming %s', async (query, parameter) => {
    const account = await createAccount({ name: 'Queried', plan: 'free' });
    expectInvalid(await ops.api.get(`/admin/accounts/${account.id}/keys?${query}`).set(auth), parameter);
  });
});
