import { adminApi, expectError, type AdminApi } from './support/admin-api';

/** What the admin app answers whatever the route: 405 with Allow, 404, request ids, and the routes the gateway mounts on it. */

let ctx: AdminApi;
beforeEach(() => {
  ctx = adminApi();
});

describe('routing', () => {
  it.each([
    ['DELETE', '/admin/accounts', 'GET, POST'],
    ['DELETE', '/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA', 'GET, PATCH'],
    ['PUT', '/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA', 'GET, PATCH'],
    ['PUT', '/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA/keys', 'GET, POST'],
    ['POST', '/admin/usage/top', 'GET'],
    ['DELETE', '/admin/usage/refused', 'GET'],
    ['POST', '/admin/audit', 'GET'],
    ['POST', '/admin/me', 'GET'],
    ['GET', '/admin/keys/key_AAAAAAAAAAAAAAAAAAAA', 'DELETE'],
    ['POST', '/admin/keys/key_AAAAAAAAAAAAAAAAAAAA/ban', 'DELETE'],
    ['POST', '/admin/plans', 'GET'],
    ['GET', '/admin/plans/free', 'PUT'],
  ])('when %s %s is asked, then 405 method_not_allowed with Allow: %s', async (method, path, allow) => {
    const res = await ctx.api[method.toLowerCase() as 'get'](path).set(ctx.auth);
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe(allow);
  });

  it.each(['/admin/nowhere', '/admin/accounts/x/keys/y', '/admin/keys', '/v1/pets', '/'])('when %s is asked, then 404 not_found', async (path) => {
    expectError(await ctx.api.get(path).set(ctx.auth), 404, 'not_found');
  });

  it('when the client sends a usable X-Request-Id, then it is echoed; otherwise one is generated', async () => {
    expect((await ctx.api.get('/admin/plans').set(ctx.auth).set('X-Request-Id', 'ops-123')).headers['x-request-id']).toBe('ops-123');
    expect((await ctx.api.get('/admin/plans').set(ctx.auth).set('X-Request-Id', 'bad id!')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when extra routes are mounted, then they answer, and requireAdmin guards the ones that use it', async () => {
    expect((await ctx.api.get('/metrics')).text).toBe('# metrics\n');
    expectError(await ctx.api.get('/guarded'), 401, 'unauthorized');
    expect((await ctx.api.get('/guarded').set(ctx.auth)).body).toEqual({ ok: true });
  });
});
