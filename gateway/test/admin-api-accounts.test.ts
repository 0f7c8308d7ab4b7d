import { adminApi, expectError, type AdminApi } from './support/admin-api';

/** The accounts of the admin API: creating one, reading one with its usage, and changing its plan or quotas. */

let ctx: AdminApi;
beforeEach(() => {
  ctx = adminApi();
});

describe('POST /admin/accounts', () => {
  it('when the body is valid, then 201 with the account, its effective quotas and a Location', async () => {
    const res = await ctx.api.post('/admin/accounts').set(ctx.auth).send({ name: '  Acme Pets  ', plan: 'pro' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^acct_[0-9A-Za-z]{20}$/),
      name: 'Acme Pets',
      plan: 'pro',
      perMinute: 300,
      perDay: 10_000,
      overrides: { perMinute: null, perDay: null },
      email: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(res.headers.location).toBe(`/admin/accounts/${res.body.id}`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('when an enterprise account carries both numbers, then they are its quotas', async () => {
    const account = await ctx.createAccount({ name: 'Big Co', plan: 'enterprise', perMinute: 5_000, perDay: 1_000_000_000 });
    expect(account).toMatchObject({ plan: 'enterprise', perMinute: 5_000, perDay: 1_000_000_000 });
  });

  it('when the name is 100 emoji (more than 100 UTF-16 units), then it is accepted', async () => {
    const account = await ctx.createAccount({ name: '🐾'.repeat(100), plan: 'free' });
    expect(account.name).toBe('🐾'.repeat(100));
  });

  it.each([
    ['name missing', { plan: 'free' }, /^name is required/],
    ['name empty', { name: '', plan: 'free' }, /^name /],
    ['name only white space', { name: ' \t ', plan: 'free' }, /^name /],
    ['name too long', { name: 'x'.repeat(101), plan: 'free' }, /^name must have at most 100/],
    ['name not a string', { name: 42, plan: 'free' }, /^name must be a string/],
    ['plan missing', { name: 'A' }, /^plan is required/],
    ['plan unknown', { name: 'A', plan: 'gold' }, /^plan must be one of/],
    ['plan in another case', { name: 'A', plan: 'Free' }, /^plan must be one of/],
    ['perMinute zero', { name: 'A', plan: 'free', perMinute: 0 }, /^perMinute must be at least 1/],
    ['perMinute negative', { name: 'A', plan: 'free', perMinute: -5 }, /^perMinute /],
    ['perMinute a fraction', { name: 'A', plan: 'free', perMinute: 1.5 }, /^perMinute must be an integer/],
    ['perMinute a string', { name: 'A', plan: 'free', perMinute: '10' }, /^perMinute must be an integer/],
    ['perDay above 1e9', { name: 'A', plan: 'free', perDay: 1_000_000_001 }, /^perDay must be at most 1000000000/],
    ['an unknown field', { name: 'A', plan: 'free', id: 'acct_mine' }, /^id is not an accepted field/],
    ['enterprise without perMinute', { name: 'A', plan: 'enterprise', perDay: 10 }, /^perMinute is required for an enterprise account/],
    ['enterprise without perDay', { name: 'A', plan: 'enterprise', perMinute: 10 }, /^perDay is required for an enterprise account/],
    ['enterprise with a null override', { name: 'A', plan: 'enterprise', perMinute: null, perDay: 10 }, /^perMinute is required/],
    ['an array', [{ name: 'A', plan: 'free' }], /^body must be a JSON object/],
  ])('when the body has %s, then 400 invalid_body naming the field', async (_what, body, message) => {
    expectError(await ctx.api.post('/admin/accounts').set(ctx.auth).send(body as object), 400, 'invalid_body', message);
  });

  it('when the body is empty JSON, then 400 invalid_body naming the first required field', async () => {
    const res = await ctx.api.post('/admin/accounts').set(ctx.auth).set('Content-Type', 'application/json').send('');
    expectError(res, 400, 'invalid_body', /name|body/);
  });

  it('when the content type is missing or not JSON, then 415 unsupported_media_type', async () => {
    const body = JSON.stringify({ name: 'A', plan: 'free' });
    const missing = await ctx.api.post('/admin/accounts').set(ctx.auth).send(Buffer.from(body));
    expectError(missing, 415, 'unsupported_media_type', /Content-Type/);
    const text = await ctx.api.post('/admin/accounts').set(ctx.auth).set('Content-Type', 'text/plain').send(body);
    expectError(text, 415, 'unsupported_media_type');
    const form = await ctx.api.post('/admin/accounts').set(ctx.auth).type('form').send({ name: 'A', plan: 'free' });
    expectError(form, 415, 'unsupported_media_type');
    const latin1 = await ctx.api.post('/admin/accounts').set(ctx.auth).set('Content-Type', 'application/json; charset=latin1').send(body);
    expectError(latin1, 415, 'unsupported_media_type');
  });

  it('when the content type has a UTF-8 charset parameter, then it is accepted', async () => {
    const res = await ctx.api
      .post('/admin/accounts')
      .set(ctx.auth)
      .set('Content-Type', 'Application/JSON; charset=UTF-8')
      .send(JSON.stringify({ name: 'A', plan: 'free' }));
    expect(res.status).toBe(201);
  });

  it('when the JSON is malformed, then 400 malformed_json', async () => {
    const res = await ctx.api.post('/admin/accounts').set(ctx.auth).set('Content-Type', 'application/json').send('{"name": "A",');
    expectError(res, 400, 'malformed_json');
  });

  it('when the body is larger than 16 KiB, then 413 payload_too_large', async () => {
    const res = await ctx.api
      .post('/admin/accounts')
      .set(ctx.auth)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'A', plan: 'free', pad: 'x'.repeat(17 * 1024) }));
    expectError(res, 413, 'payload_too_large');
  });
});

describe('GET /admin/accounts/{id}', () => {
  it('when the account exists, then 200 with effective quotas and the usage of both windows', async () => {
    const account = await ctx.createAccount({ name: 'Acme', plan: 'free' });
    const quotas = { perMinute: 60, perDay: 1_000 };
    for (let i = 0; i < 3; i++) await ctx.limiter.consumeKey({ accountId: account.id, keyId: 'key_x', quotas });
    const res = await ctx.api.get(`/admin/accounts/${account.id}`).set(ctx.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...account, usage: expect.any(Object) });
    expect(res.body.usage).toEqual({
      minute: { used: 3, limit: 60, remaining: 57, resetAt: expect.stringMatching(/Z$/) },
      day: { used: 3, limit: 1_000, remaining: 997, resetAt: expect.stringMatching(/T00:00:00\.000Z$/) },
    });
  });

  it.each(['acct_AAAAAAAAAAAAAAAAAAAA', 'nope', 'acct_%2e%2e'])('when the account %s does not exist, then 404 not_found', async (id) => {
    expectError(await ctx.api.get(`/admin/accounts/${id}`).set(ctx.auth), 404, 'not_found', /account/);
  });
});

describe('PATCH /admin/accounts/{id}', () => {
  it('when the plan changes, then 200 with the new effective quotas', async () => {
    const account = await ctx.createAccount();
    const res = await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ plan: 'business' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: account.id, plan: 'business', perMinute: 1_000, perDay: 100_000 });
  });

  it('when an override is set and later cleared with null, then the effective quota follows', async () => {
    const account = await ctx.createAccount({ name: 'A', plan: 'pro' });
    const set = await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ perMinute: 42 });
    expect(set.body).toMatchObject({ perMinute: 42, perDay: 10_000, overrides: { perMinute: 42, perDay: null } });
    const cleared = await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ perMinute: null });
    expect(cleared.body).toMatchObject({ perMinute: 300, overrides: { perMinute: null, perDay: null } });
    expect((await ctx.api.get(`/admin/accounts/${account.id}`).set(ctx.auth)).body.perMinute).toBe(300);
  });

  it('when an account becomes enterprise with both numbers, then 200; without them, 400 naming the missing one', async () => {
    const account = await ctx.createAccount();
    expectError(await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ plan: 'enterprise', perMinute: 10 }), 400, 'invalid_body', /^perDay/);
    const res = await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ plan: 'enterprise', perMinute: 10, perDay: 20 });
    expect(res.body).toMatchObject({ plan: 'enterprise', perMinute: 10, perDay: 20 });
    expectError(await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ perDay: null }), 400, 'invalid_body', /^perDay is required/);
  });

  it('when the body is empty, then 200 and nothing changes', async () => {
    const account = await ctx.createAccount();
    const res = await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(account);
  });

  it.each([
    ['an unknown field', { name: 'new name' }, /^name is not an accepted field/],
    ['an unknown plan', { plan: 'gold' }, /^plan must be one of/],
    ['a null plan', { plan: null }, /^plan must be a string/],
    ['a zero quota', { perDay: 0 }, /^perDay must be at least 1/],
    ['a string quota', { perMinute: 'none' }, /^perMinute must be an integer/],
  ])('when the patch has %s, then 400 invalid_body naming the field', async (_what, body, message) => {
    const account = await ctx.createAccount();
    expectError(await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send(body), 400, 'invalid_body', message);
  });

  it('when the account does not exist, then 404 not_found', async () => {
    expectError(await ctx.api.patch('/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA').set(ctx.auth).send({ plan: 'pro' }), 404, 'not_found');
  });

  it('when the patch is not JSON, then 415', async () => {
    const account = await ctx.createAccount();
    expectError(await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).set('Content-Type', 'text/plain').send('plan=pro'), 415, 'unsupported_media_type');
  });
});
