import express from 'express';
import request from 'supertest';
import { createLogger } from '../../shared/src/logger';
import { PrincipalResolver } from '../src/accounts/principal-resolver';
import { RedisAccountStore } from '../src/accounts/redis-account-store';
import { BUILT_IN_PLANS } from '../src/accounts/types';
import { createAdminApp } from '../src/admin/app';
import { TokenFailures } from '../src/admin/token-failures';
import { hashApiKey, parseApiKey } from '../src/keys/api-key';
import { opsParts } from './support/ops';
import { useRedis } from './support/redis';

const TOKEN = 'test-admin-token-0123456789';
const logger = createLogger('admin-test', 'silent');

function setup() {
  const { store, limiter, service, reports } = opsParts();
  const app = createAdminApp({
    service,
    reports,
    adminToken: TOKEN,
    logger,
    extraRoutes: (router, { requireAdmin }) => {
      router.get('/metrics', (_req, res) => {
        res.type('text/plain').send('# metrics\n');
      });
      router.get('/guarded', requireAdmin, (_req, res) => {
        res.json({ ok: true });
      });
    },
  });
  const api = request(app);
  const auth = { Authorization: `Bearer ${TOKEN}` };
  return { store, limiter, service, app, api, auth };
}

let ctx: ReturnType<typeof setup>;
beforeEach(() => {
  ctx = setup();
});

function expectError(res: request.Response, status: number, code: string, mentions?: string | RegExp) {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(res.body).toEqual({ code, message: expect.any(String), status });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  if (mentions) expect(res.body.message).toMatch(mentions);
}

async function createAccount(body: object = { name: 'Acme', plan: 'free' }) {
  const res = await ctx.api.post('/admin/accounts').set(ctx.auth).send(body);
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; plan: string; perMinute: number; perDay: number };
}

describe('admin authentication', () => {
  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer wrong-${TOKEN}`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['another scheme', `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}`],
    ['the token without a scheme', TOKEN],
    ['an empty bearer token', 'Bearer'],
  ])('when the request carries %s, then 401 unauthorized with WWW-Authenticate: Bearer', async (_what, header) => {
    const req = ctx.api.get('/admin/plans');
    const res = await (header === undefined ? req : req.set('Authorization', header));
    expectError(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer( |$)/);
  });

  it('when the scheme is written in lower case with extra spaces, then the token is accepted', async () => {
    const res = await ctx.api.get('/admin/plans').set('Authorization', `bearer    ${TOKEN}`);
    expect(res.status).toBe(200);
  });

  it('when an unknown admin path or a wrong method is used without a token, then 401 comes first', async () => {
    expectError(await ctx.api.get('/admin/nowhere'), 401, 'unauthorized');
    expectError(await ctx.api.delete('/admin/plans'), 401, 'unauthorized');
  });

  it('when two Authorization headers are sent, the first one valid, then 401 (ambiguous, as on the public port), not the first one wins', async () => {
    // superagent hands an array on to Node, which sends one header line per value (checked: two lines).
    const res = await ctx.api.get('/admin/plans').set('Authorization', [`Bearer ${TOKEN}`, 'Bearer other'] as unknown as string);
    expectError(res, 401, 'unauthorized');
  });

  it('when the token is given in the query string, then it is not accepted', async () => {
    expectError(await ctx.api.get(`/admin/plans?access_token=${TOKEN}`), 401, 'unauthorized');
  });

  it('when the admin token is empty, then the app refuses to be built', () => {
    expect(() => createAdminApp({ service: ctx.service, reports: opsParts().reports, adminToken: '', logger })).toThrow(/admin token/);
    expect(() => createAdminApp({ service: ctx.service, reports: opsParts().reports, logger })).toThrow(/admin token/);
  });
});

describe('wrong tokens back off (per address)', () => {
  const limited = () => request(createAdminApp({ ...opsParts(), adminToken: TOKEN, logger, tokenFailures: new TokenFailures({ failures: 5, windowSeconds: 300 }) }));

  it('when an address has sent as many wrong tokens as allowed, then its next request is refused 429 with Retry-After, the right token too', async () => {
    const api = limited();
    for (let i = 0; i < 5; i += 1) expectError(await api.get('/admin/plans').set('Authorization', `Bearer guess-${i}-0123456789abcdef`), 401, 'unauthorized');
    const refused = await api.get('/admin/plans').set('Authorization', `Bearer ${TOKEN}`);
    expectError(refused, 429, 'rate_limited', /Too many wrong admin tokens from this address: try again in \d+ seconds/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(200);
  });

  it('when many wrong tokens arrive at once, then no more than the allowed number are compared', async () => {
    const api = limited();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => api.get('/admin/plans').set('Authorization', `Bearer guess-${i}-0123456789abcdef`)));
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(35);
  });

  it('when requests carry the right token or no token at all, then they cost nothing', async () => {
    const api = limited();
    for (let i = 0; i < 10; i += 1) {
      expect((await api.get('/admin/plans').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(200);
      expect((await api.get('/admin/plans')).status).toBe(401);
    }
    for (let i = 0; i < 4; i += 1) expect((await api.get('/admin/plans').set('Authorization', 'Bearer wrong-0123456789abcdef')).status).toBe(401);
    expect((await api.get('/admin/plans').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(200);
  });
});

describe('the Host the admin port answers to', () => {
  const withHosts = (options: { adminHost?: string; allowedHosts?: string[] } = {}) => request(createAdminApp({ ...opsParts(), adminToken: TOKEN, logger, ...options }));

  it.each(['evil.example', 'evil.example:8081', '127.0.0.1.nip.io:8081', 'localhost.evil.example', '10.0.0.5:8081'])(
    'when Host is %s (a DNS-rebinding page, or a name nobody listed), then 400 invalid_parameter naming it, with the right token and for the console',
    async (host) => {
      const api = withHosts();
      const res = await api.get('/admin/plans').set('Host', host).set('Authorization', `Bearer ${TOKEN}`);
      expectError(res, 400, 'invalid_parameter', `the Host "${host}"`);
      expect(res.body.message).toContain('ADMIN_ALLOWED_HOSTS');
      expectError(await api.get('/console').set('Host', host), 400, 'invalid_parameter');
    },
  );

  it.each(['127.0.0.1:8081', 'localhost:8081', 'LOCALHOST', 'localhost.:9999', '[::1]:8081', '127.0.0.1'])('when Host is %s (the CLI, the console, curl), then it is answered', async (host) => {
    expect((await withHosts().get('/admin/plans').set('Host', host).set('Authorization', `Bearer ${TOKEN}`)).status).toBe(200);
  });

  it('when Host is the admin address or a name in ADMIN_ALLOWED_HOSTS, then it is answered', async () => {
    const api = withHosts({ adminHost: '10.0.0.5', allowedHosts: ['ops.internal'] });
    expect((await api.get('/admin/plans').set('Host', '10.0.0.5:8081').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(200);
    expect((await api.get('/admin/plans').set('Host', 'ops.internal:8081').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(200);
    expectError(await api.get('/admin/plans').set('Host', 'other.internal').set('Authorization', `Bearer ${TOKEN}`), 400, 'invalid_parameter');
  });
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
    const account = await createAccount({ name: 'Big Co', plan: 'enterprise', perMinute: 5_000, perDay: 1_000_000_000 });
    expect(account).toMatchObject({ plan: 'enterprise', perMinute: 5_000, perDay: 1_000_000_000 });
  });

  it('when the name is 100 emoji (more than 100 UTF-16 units), then it is accepted', async () => {
    const account = await createAccount({ name: '🐾'.repeat(100), plan: 'free' });
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
    const account = await createAccount({ name: 'Acme', plan: 'free' });
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
    const account = await createAccount();
    const res = await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ plan: 'business' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: account.id, plan: 'business', perMinute: 1_000, perDay: 100_000 });
  });

  it('when an override is set and later cleared with null, then the effective quota follows', async () => {
    const account = await createAccount({ name: 'A', plan: 'pro' });
    const set = await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ perMinute: 42 });
    expect(set.body).toMatchObject({ perMinute: 42, perDay: 10_000, overrides: { perMinute: 42, perDay: null } });
    const cleared = await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ perMinute: null });
    expect(cleared.body).toMatchObject({ perMinute: 300, overrides: { perMinute: null, perDay: null } });
    expect((await ctx.api.get(`/admin/accounts/${account.id}`).set(ctx.auth)).body.perMinute).toBe(300);
  });

  it('when an account becomes enterprise with both numbers, then 200; without them, 400 naming the missing one', async () => {
    const account = await createAccount();
    expectError(await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ plan: 'enterprise', perMinute: 10 }), 400, 'invalid_body', /^perDay/);
    const res = await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ plan: 'enterprise', perMinute: 10, perDay: 20 });
    expect(res.body).toMatchObject({ plan: 'enterprise', perMinute: 10, perDay: 20 });
    expectError(await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send({ perDay: null }), 400, 'invalid_body', /^perDay is required/);
  });

  it('when the body is empty, then 200 and nothing changes', async () => {
    const account = await createAccount();
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
    const account = await createAccount();
    expectError(await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).send(body), 400, 'invalid_body', message);
  });

  it('when the account does not exist, then 404 not_found', async () => {
    expectError(await ctx.api.patch('/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA').set(ctx.auth).send({ plan: 'pro' }), 404, 'not_found');
  });

  it('when the patch is not JSON, then 415', async () => {
    const account = await createAccount();
    expectError(await ctx.api.patch(`/admin/accounts/${account.id}`).set(ctx.auth).set('Content-Type', 'text/plain').send('plan=pro'), 415, 'unsupported_media_type');
  });
});

describe('keys', () => {
  it('when a key is created, then 201 shows it once, only its hash is stored, and it authenticates', async () => {
    const account = await createAccount({ name: 'A', plan: 'pro' });
    const res = await ctx.api.post(`/admin/accounts/${account.id}/keys`).set(ctx.auth);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^key_/), key: expect.any(String), accountId: account.id, createdAt: expect.any(String), environment: 'production', name: null, access: 'read-write', expiresAt: null });
    expect(parseApiKey(res.body.key).ok).toBe(true);
    const stored = await ctx.store.getKey(res.body.id);
    expect(stored).toMatchObject({ hash: hashApiKey(res.body.key), revokedAt: null });
    expect(JSON.stringify(stored)).not.toContain(res.body.key);
    const resolver = new PrincipalResolver({ store: ctx.store });
    expect(await resolver.resolve(res.body.key)).toMatchObject({ accountId: account.id, quotas: { perMinute: 300, perDay: 10_000 } });
    resolver.close();
  });

  it('when an account\'s keys are listed with a query parameter, then 400 invalid_parameter naming it (the list takes none)', async () => {
    const account = await createAccount();
    expect((await ctx.api.get(`/admin/accounts/${account.id}/keys`).set(ctx.auth)).status).toBe(200);
    expectError(await ctx.api.get(`/admin/accounts/${account.id}/keys?x=1`).set(ctx.auth), 400, 'invalid_parameter', 'Unknown query parameter "x"; this listing takes none.');
  });

  it('when a key is created for an unknown account, then 404 not_found', async () => {
    expectError(await ctx.api.post('/admin/accounts/acct_AAAAAAAAAAAAAAAAAAAA/keys').set(ctx.auth), 404, 'not_found');
  });

  it('when a key is revoked, then 204 with no body, it stops authenticating, and revoking again is 204 too', async () => {
    const account = await createAccount();
    const key = (await ctx.api.post(`/admin/accounts/${account.id}/keys`).set(ctx.auth)).body as { id: string; key: string };
    const resolver = new PrincipalResolver({ store: ctx.store });
    expect(await resolver.resolve(key.key)).not.toBeNull();
    const res = await ctx.api.delete(`/admin/keys/${key.id}`).set(ctx.auth);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await resolver.resolve(key.key)).toBeNull();
    expect((await ctx.api.delete(`/admin/keys/${key.id}`).set(ctx.auth)).status).toBe(204);
    resolver.close();
  });

  it.each(['key_AAAAAAAAAAAAAAAAAAAA', 'whatever'])('when the key %s is unknown, then revoking and lifting its ban are 404 not_found', async (id) => {
    expectError(await ctx.api.delete(`/admin/keys/${id}`).set(ctx.auth), 404, 'not_found', /key/);
    expectError(await ctx.api.delete(`/admin/keys/${id}/ban`).set(ctx.auth), 404, 'not_found', /key/);
  });

  it('when a banned key has its ban lifted, then 204 and the key is no longer banned', async () => {
    const account = await createAccount();
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

describe('plans', () => {
  it('when the plans are listed, then 200 with the four built-in plans', async () => {
    const res = await ctx.api.get('/admin/plans').set(ctx.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(BUILT_IN_PLANS);
  });

  it('when a plan is set, then 200 with it, the list shows it and accounts on it get the new quotas', async () => {
    const account = await createAccount({ name: 'A', plan: 'free' });
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

describe('admin API over a Redis store that is down', () => {
  const redis = useRedis();
  let store: RedisAccountStore;

  beforeAll(async () => {
    store = redis.closeAfter(await RedisAccountStore.connect(redis.url));
  });

  it('when Redis is unreachable, then 503 service_unavailable with Retry-After, quickly', async () => {
    const { service, reports } = opsParts({ store });
    const app = express().use(createAdminApp({ service, reports, adminToken: TOKEN, logger }));
    const created = await request(app).post('/admin/accounts').set('Authorization', `Bearer ${TOKEN}`).send({ name: 'A', plan: 'free' });
    expect(created.status).toBe(201);
    await redis.server.stop();
    const started = Date.now();
    const res = await request(app).get(`/admin/accounts/${created.body.id}`).set('Authorization', `Bearer ${TOKEN}`);
    expectError(res, 503, 'service_unavailable');
    expect(res.headers['retry-after']).toBe('1');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
