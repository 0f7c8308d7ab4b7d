import { describeOnEachStack } from './support/ops-api';

/** The accounts as operators see them: the list (paged, filtered, searched) and one account's history. */

describeOnEachStack('accounts', (ops) => {
  const { auth, createAccount, expectInvalid, traffic } = ops;

  describe('GET /admin/accounts', () => {
    it('when there are more accounts than a page, then 20 come oldest first and Link gives the next page, relative', async () => {
      const created = [];
      for (let i = 1; i <= 23; i++) created.push(await createAccount({ name: `Account ${String(i).padStart(2, '0')}`, plan: 'free' }));
      const first = await ops.api.get('/admin/accounts').set(auth);
      expect(first.status).toBe(200);
      expect(first.body.map((a: { id: string }) => a.id)).toEqual(created.slice(0, 20).map((a) => a.id));
      expect(first.body[0]).toEqual({
        id: created[0]!.id,
        name: 'Account 01',
        plan: 'free',
        perMinute: 60,
        perDay: 1_000,
        overrides: { perMinute: null, perDay: null },
        email: null,
        createdAt: expect.any(String),
      });
      const link = /^<(\/admin\/accounts\?cursor=[A-Za-z0-9_-]+)>; rel="next"$/.exec(first.headers.link ?? '');
      expect(link).not.toBeNull();
      const second = await ops.api.get(link![1]!).set(auth);
      expect(second.body.map((a: { id: string }) => a.id)).toEqual(created.slice(20).map((a) => a.id));
      expect(second.headers.link).toBeUndefined();
    });

    it('when filtered by plan and searched, then only matches come, case-insensitively on name or email, and Link keeps the filters', async () => {
      const acme = await createAccount({ name: 'ACME Pets', plan: 'pro' });
      await createAccount({ name: 'Acme Free', plan: 'free' });
      const corp = await createAccount({ name: 'Corp', plan: 'pro' });
      await ops.stack.store.updateAccount({ ...(await ops.stack.store.getAccount(corp.id))!, email: 'ops@acme.example' });
      await createAccount({ name: 'Other', plan: 'pro' });

      const page = await ops.api.get('/admin/accounts?limit=1&plan=pro&q=acme').set(auth);
      expect(page.body.map((a: { name: string }) => a.name)).toEqual(['ACME Pets']);
      const next = /^<([^>]+)>; rel="next"$/.exec(page.headers.link ?? '')![1]!;
      expect(next).toMatch(/^\/admin\/accounts\?limit=1&plan=pro&q=acme&cursor=/);
      const rest = await ops.api.get(next).set(auth);
      expect(rest.body).toEqual([expect.objectContaining({ id: corp.id, email: 'ops@acme.example' })]);
      expect(rest.headers.link).toBeUndefined();

      expect((await ops.api.get('/admin/accounts?q=%20ACME%20').set(auth)).body.map((a: { id: string }) => a.id)).toEqual([acme.id, expect.any(String), corp.id]);
      expect((await ops.api.get('/admin/accounts?q=nobody').set(auth)).body).toEqual([]);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['plan=gold', 'plan'],
      ['plan=Free', 'plan'],
      ['q=%20%20', 'q'],
      [`q=${'x'.repeat(101)}`, 'q'],
      ['q=a%0Ab', 'q'],
      ['cursor=nonsense', 'cursor'],
      ['cursor=', 'cursor'],
      [`cursor=${Buffer.from('e.1-0').toString('base64url')}`, 'cursor'],
      ['sort=name', 'sort'],
    ])('when the query has %s, then 400 invalid_parameter naming %s', async (query, parameter) => {
      expectInvalid(await ops.api.get(`/admin/accounts?${query}`).set(auth), parameter);
    });
  });

  describe('GET /admin/accounts/{id}', () => {
    it('when requests were accepted today, then the account carries 30 days of history ending today with them', async () => {
      const account = await createAccount({ name: 'Historic', plan: 'free' });
      await traffic(account.id, 'key_AAAAAAAAAAAAAAAAAAAA', { perMinute: 60, perDay: 1_000 }, 3);
      const res = await ops.api.get(`/admin/accounts/${account.id}`).set(auth);
      expect(res.body.history).toHaveLength(30);
      expect(res.body.history[29]).toEqual({ day: new Date().toISOString().slice(0, 10), accepted: 3 });
      expect(res.body.history[0].day < res.body.history[29].day).toBe(true);
      expect(res.body.usage.minute.used).toBe(3);
    });
  });
});
