import { describeOnEachStack } from './support/ops-api';

/** Who uses most of their quotas, and whose requests are refused. */

describeOnEachStack('GET /admin/usage/top and /admin/usage/refused', (ops) => {
  const { auth, createAccount, expectInvalid, traffic } = ops;

  it('when accounts have used their quotas, then top lists {accountId, plan, used, quota} (and name), highest share first', async () => {
    const full = await createAccount({ name: 'Full', plan: 'enterprise', perMinute: 2, perDay: 1_000 });
    const half = await createAccount({ name: 'Half', plan: 'free', perMinute: 10, perDay: 10 });
    await traffic(full.id, 'key_FFFFFFFFFFFFFFFFFFFF', { perMinute: 2, perDay: 1_000 }, 3);
    await traffic(half.id, 'key_HHHHHHHHHHHHHHHHHHHH', { perMinute: 10, perDay: 10 }, 5);

    const minute = await ops.api.get('/admin/usage/top?window=minute').set(auth);
    expect(minute.status).toBe(200);
    expect(minute.body).toEqual([
      { accountId: full.id, name: 'Full', plan: 'enterprise', used: 2, quota: 2 },
      { accountId: half.id, name: 'Half', plan: 'free', used: 5, quota: 10 },
    ]);
    expect((await ops.api.get('/admin/usage/top').set(auth)).body).toEqual(minute.body);
    const day = await ops.api.get('/admin/usage/top?window=day&limit=1').set(auth);
    expect(day.body).toEqual([{ accountId: half.id, name: 'Half', plan: 'free', used: 5, quota: 10 }]);

    const refused = await ops.api.get('/admin/usage/refused').set(auth);
    expect(refused.body).toEqual([{ keyId: 'key_FFFFFFFFFFFFFFFFFFFF', accountId: full.id, name: 'Full', plan: 'enterprise', refused: 1 }]);
  });

  it.each([
    ['/admin/usage/top?window=hour', 'window'],
    ['/admin/usage/top?window=', 'window'],
    ['/admin/usage/top?limit=0', 'limit'],
    ['/admin/usage/top?limit=101', 'limit'],
    ['/admin/usage/top?cursor=x', 'cursor'],
    ['/admin/usage/refused?limit=x', 'limit'],
    ['/admin/usage/refused?window=day', 'window'],
  ])('when %s is asked, then 400 invalid_parameter naming %s', async (path, parameter) => {
    expectInvalid(await ops.api.get(path).set(auth), parameter);
  });
});
