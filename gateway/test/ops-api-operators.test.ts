import { ALICE, BOB, describeOnEachStack } from './support/ops-api';

/** Operators known by their own tokens (ADMIN_TOKENS). */

describeOnEachStack('GET /admin/me and named tokens', (ops) => {
  const { as, auth } = ops;

  it('when each operator calls with their own token, then the API knows them by name; an unknown token is refused', async () => {
    expect((await ops.api.get('/admin/me').set(as(ALICE))).body).toEqual({ actor: 'alice' });
    expect((await ops.api.get('/admin/me').set(as(BOB))).body).toEqual({ actor: 'bob' });
    expect((await ops.api.get('/admin/me').set(auth)).body).toEqual({ actor: 'admin' });
    const refused = await ops.api.get('/admin/me').set(as(`${ALICE}x`));
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer /);
  });
});
