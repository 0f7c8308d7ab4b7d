import { BUILT_IN_PLANS } from '../src/accounts/types';
import { adminApi, expectError, type AdminApi } from './support/admin-api';

/** The plans through the admin API: listed, and their quotas changed for every account on them. */

let ctx: AdminApi;
beforeEach(() => {
  ctx = adminApi();
});

describe('plans', () => {
  it('when the plans are listed, then 200 with the four built-in plans', async () => {
    const res = await ctx.api.get('/admin/plans').set(ctx.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(BUILT_IN_PLANS);
  });

  it('when a plan is set, then 200 with it, the list shows it and accounts on it get the new quotas', async () => {
    const account = await ctx.createAccount({ name: 'A', plan: 'free' });
    const res = await ctx.api.put('/admin/plans/free').set(ctx.auth).send({ perMinute: 120, perDay: 2_000 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'free', perMinute: 120, perDay: 2_000 });
    expect((await ctx.api.get('/admin/plans').set(ctx.auth)).body[0]).toEqual({ name: 'free', perMinute: 120, perDay: 2_000 });
    expect((await ctx.api.get(`/admin/accounts/${account.id}`).set(ctx.auth)).body).toMatchObject({ perMinute: 120, perDay: 2_000 });
  });

  it('when the plan is unknown, then 404 not_found (whatever the body)', async () => {
    expectError(await ctx.api.put('/admin/plans/gold').set(ctx.auth).send({ perMinute: 1, perDay: 2 }), 404, 'not_found', /gold/);
    expectError(await ctx.api.put('/admin/plans/gold').set(ctx.auth).set('Content-Type', 'text/plain').send('x'), 404, 'not_found');
  });

  it('when the enterprise plan is set, then 400 invalid_body: enterprise has no plan numbers', async () => {
    expectError(await ctx.api.put('/admin/plans/enterprise').set(ctx.auth).send({ perMinute: 1, perDay: 2 }), 400, 'invalid_body', /enterprise/);
  });

  it.each([
    ['perDay missing', { perMinute: 1 }, /^perDay is required/],
    ['perMinute missing', { perDay: 1 }, /^perMinute is required/],
    ['perMinute zero', { perMinute: 0, perDay: 1 }, /^perMinute must be at least 1/],
    ['perDay a fraction', { perMinute: 1, perDay: 2.5 }, /^perDay must be an integer/],
    ['perDay null', { perMinute: 1, perDay: null }, /^perDay must be an integer/],
    ['an unknown field', { perMinute: 1, perDay: 2, name: 'free' }, /^name is not an accepted field/],
  ])('when the plan body has %s, then 400 invalid_body naming the field', async (_what, body, message) => {
    expectError(await ctx.api.put('/admin/plans/pro').set(ctx.auth).send(body), 400, 'invalid_body', message);
  });

  it('when the plan body is not JSON, too large or malformed, then 415, 413 and 400 malformed_json', async () => {
    expectError(await ctx.api.put('/admin/plans/pro').set(ctx.auth).set('Content-Type', 'text/plain').send('1,2'), 415, 'unsupported_media_type');
    expectError(
      await ctx.api.put('/admin/plans/pro').set(ctx.auth).set('Content-Type', 'application/json').send(`{"perMinute": 1, "perDay": 2, "x": "${'y'.repeat(20_000)}"}`),
      413,
      'payload_too_large',
    );
    expectError(await ctx.api.put('/admin/plans/pro').set(ctx.auth).set('Content-Type', 'application/json').send('{perMinute: 1}'), 400, 'malformed_json');
  });
});
