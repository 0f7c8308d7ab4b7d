import { ALICE, BOB, describeOnEachStack } from './support/ops-api';

/** The audit trail: every change with its operator, paged and per account. */

describeOnEachStack('GET /admin/audit', (ops) => {
  const { as, auth, createAccount, createKey, expectInvalid } = ops;

  it('when operators change things, then every change is recorded with its actor, action, target, before and after, newest first', async () => {
    const acme = await createAccount({ name: 'Acme', plan: 'free' }, ALICE);
    expect((await ops.api.patch(`/admin/accounts/${acme.id}`).set(as(BOB)).send({ plan: 'enterprise', perMinute: 500, perDay: 50_000 })).status).toBe(200);
    const key = await createKey(acme.id, ALICE);
    expect((await ops.api.delete(`/admin/keys/${key.id}/ban`).set(as(BOB))).status).toBe(204);
    expect((await ops.api.delete(`/admin/keys/${key.id}`).set(as(ALICE))).status).toBe(204);
    expect((await ops.api.delete(`/admin/keys/${key.id}`).set(as(ALICE))).status).toBe(204); // already revoked: no change, no entry
    expect((await ops.api.put('/admin/plans/pro').set(auth).send({ perMinute: 400, perDay: 20_000 })).status).toBe(200);
    expect((await ops.api.patch(`/admin/accounts/${acme.id}`).set(as(BOB)).send({})).status).toBe(200); // nothing changed: no entry

    const res = await ops.api.get('/admin/audit').set(auth);
    expect(res.status).toBe(200);
    const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.body).toEqual([
      { at, actor: 'admin', action: 'plan.updated', target: 'pro', accountId: null, before: { perMinute: 300, perDay: 10_000 }, after: { perMinute: 400, perDay: 20_000 } },
      { at, actor: 'alice', action: 'key.revoked', target: key.id, accountId: acme.id, before: { revokedAt: null }, after: { revokedAt: at } },
      { at, actor: 'bob', action: 'ban.lifted', target: key.id, accountId: acme.id, before: { bannedUntil: null }, after: { bannedUntil: null } },
      { at, actor: 'alice', action: 'key.created', target: key.id, accountId: acme.id, before: null, after: { masked: `ask_live_…${key.key.slice(-4)}`, name: null, access: 'read-write', expiresAt: null } },
      {
        at,
        actor: 'bob',
        action: 'account.updated',
        target: acme.id,
        accountId: acme.id,
        before: { plan: 'free', perMinute: null, perDay: null },
        after: { plan: 'enterprise', perMinute: 500, perDay: 50_000 },
      },
      { at, actor: 'alice', action: 'account.created', target: acme.id, accountId: acme.id, before: null, after: { name: 'Acme', plan: 'free', perMinute: null, perDay: null, email: null } },
    ]);
  });

  it('when the trail is longer than a page, then Link pages it, and account= keeps to one account', async () => {
    const acme = await createAccount({ name: 'Acme', plan: 'free' });
    const other = await createAccount({ name: 'Other', plan: 'free' });
    for (let perDay = 2_000; perDay <= 2_004; perDay++) {
      await ops.api.patch(`/admin/accounts/${acme.id}`).set(as(ALICE)).send({ perDay });
      await ops.api.patch(`/admin/accounts/${other.id}`).set(as(BOB)).send({ perDay });
    }
    const first = await ops.api.get(`/admin/audit?limit=2&account=${acme.id}`).set(auth);
    expect(first.body.map((e: { after: { perDay: number } }) => e.after.perDay)).toEqual([2_004, 2_003]);
    const pages = [first.body];
    let link = first.headers.link as string | undefined;
    while (link) {
      const next = /^<([^>]+)>; rel="next"$/.exec(link)![1]!;
      expect(next).toMatch(new RegExp(`^/admin/audit\\?limit=2&account=${acme.id}&cursor=`));
      const page = await ops.api.get(next).set(auth);
      pages.push(page.body);
      link = page.headers.link;
    }
    expect(pages.flat().map((e: { action: string; after: { perDay?: number } }) => e.after.perDay ?? e.action)).toEqual([2_004, 2_003, 2_002, 2_001, 2_000, 'account.created']);
    expect(pages.flat().every((e: { accountId: string }) => e.accountId === acme.id)).toBe(true);
    expect((await ops.api.get('/admin/audit?limit=100').set(auth)).body).toHaveLength(12);
  });

  it.each([
    ['limit=0', 'limit'],
    ['cursor=abc', 'cursor'],
    [`cursor=${Buffer.from('a.1.acct_AAAAAAAAAAAAAAAAAAAA').toString('base64url')}`, 'cursor'],
    ['account=acme', 'account'],
    ['actor=alice', 'actor'],
  ])('when the query has %s, then 400 invalid_parameter naming %s', async (query, parameter) => {
    expectInvalid(await ops.api.get(`/admin/audit?${query}`).set(auth), parameter);
  });
});
