import { PrincipalResolver } from '../src/accounts/principal-resolver';
import { hashApiKey, parseApiKey } from '../src/keys/api-key';
import { adminApi, expectError, type AdminApi } from './support/admin-api';
import { resolveKey } from './support/resolve-key';

/** An account's keys through the admin API: created (shown once), listed, revoked, and their bans lifted. */

let ctx: AdminApi;
beforeEach(() => {
  ctx = adminApi();
});

describe('keys', () => {
  it('when a key is created, then 201 shows it once, only its hash is stored, and it authenticates', async () => {
    const account = await ctx.createAccount({ name: 'A', plan: 'pro' });
    const res = await ctx.api.post(`/admin/accounts/${account.id}/keys`).set(ctx.auth);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^key_/), key: expect.any(String), accountId: account.id, createdAt: expect.any(String), environment: 'production', name: null, access: 'read-write', expiresAt: null });
    expect(parseApiKey(res.body.key).ok).toBe(true);
    const stored = await ctx.store.getKey(res.body.id);
    expect(stored).toMatchObject({ hash: hashApiKey(res.body.key), revokedAt: null });
    expect(JSON.stringify(stored)).not.toContain(res.body.key);
    const resolver = new PrincipalResolver({ store: ctx.store });
    expect(await resolveKey(resolver, res.body.key)).toMatchObject({ accountId: account.id, quotas: { perMinute: 300, perDay: 10_000 } });
    resolver.close();
  });

  it('when an account\'s keys are listed with an unknown query parameter, then 400 invalid_parameter naming it and the ones it takes', async () => {
    const account = await ctx.createAccount();
    expect((await ctx.api.get(`/admin/accounts/${account.id}/keys`).set(ctx.auth)).status).toBe(200);
    expectError(await ctx.api.get(`/admin/accounts/${account.id}/keys?x=1`).set(ctx.auth), 400, 'invalid_parameter', 'Unknown query parameter "x"; accepted: limit, cursor.');
  });

  it('when a key is created for an unknown account, then 404 not_found', async () => {
    expectError(await ctx.api.post('/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA/keys').set(ctx.auth), 404, 'not_found');
  });

  it('when a key is revoked, then 204 with no body, it stops authenticating, and revoking again is 204 too', async () => {
    const account = await ctx.createAccount();
    const key = (await ctx.api.post(`/admin/accounts/${account.id}/keys`).set(ctx.auth)).body as { id: string; key: string };
    const resolver = new PrincipalResolver({ store: ctx.store });
    expect(await resolveKey(resolver, key.key)).not.toBeNull();
    const res = await ctx.api.delete(`/admin/keys/${key.id}`).set(ctx.auth);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await resolveKey(resolver, key.key)).toBeNull();
    expect((await ctx.api.delete(`/admin/keys/${key.id}`).set(ctx.auth)).status).toBe(204);
    resolver.close();
  });

  it.each(['key_AAAAAAAAAAAAAAAAAAAA', 'whatever'])('when the key %s is unknown, then revoking and lifting its ban are 404 not_found', async (id) => {
    expectError(await ctx.api.delete(`/admin/keys/${id}`).set(ctx.auth), 404, 'not_found', /key/);
    expectError(await ctx.api.delete(`/admin/keys/${id}/ban`).set(ctx.auth), 404, 'not_found', /key/);
  });

  it('when a banned key has its ban lifted, then 204 and the key is no longer banned', async () => {
    const account = await ctx.createAccount();
    const key = (await ctx.api.post(`/admin/accounts/${account.id}/keys`).set(ctx.auth)).body as { id: string };
    const subject = { accountId: account.id, keyId: key.id, quotas: { perMinute: 1, perDay: 100 } };
    let outcome = '';
    for (let i = 0; i < 10 && outcome !== 'banned'; i++) outcome = (await ctx.limiter.consumeKey(subject)).outcome;
    expect(outcome).toBe('banned');
    const res = await ctx.api.delete(`/admin/keys/${key.id}/ban`).set(ctx.auth);
    expect(res.status).toBe(204);
    expect((await ctx.limiter.consumeKey(subject)).outcome).not.toBe('banned');
  });
});
