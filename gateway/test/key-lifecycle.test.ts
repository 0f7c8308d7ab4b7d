import request from 'supertest';
import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import type { Gateway } from '../src/gateway';
import { ADMIN_TOKEN, limitsOf, publicGet, startGateway } from './support/gateway';

/**
 * Key lifecycle in one gateway process (in-process store): the admin API's rules for creating and
 * rolling keys, and the `/v1` pipeline's refusals of expired and read-only keys. The same rules
 * through real processes, on one and on two replicas: test/e2e/key-lifecycle.test.ts.
 */

let gateway: Gateway;
let lastIp = 0;
/** A client address (TEST-NET-3) no other test of this file uses, so anonymous budgets never mix. */
const freshIp = () => `203.0.113.${++lastIp}`;
const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const FAR_FUTURE = '2999-01-01T00:00:00.000Z';

beforeEach(async () => {
  gateway = await startGateway({ ANON_PER_MINUTE: '1000' });
});

afterEach(async () => {
  await gateway.close();
  jest.useRealTimers();
});

/**
 * Restarts the gateway on a clock that moves only when the test moves it (`Date` faked; timers run
 * in real time): an expiry is reached by `moveClock`, without waiting, so no verdict depends on how
 * fast the requests before it were.
 */
async function gatewayOnTestClock(): Promise<void> {
  await gateway.close();
  jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
  gateway = await startGateway({ ANON_PER_MINUTE: '1000' });
}

function moveClock(to: number): void {
  jest.setSystemTime(to);
}

const adminApi = () => request(gateway.adminApp);

async function newAccount(plan = 'free', extra: object = {}): Promise<string> {
  const res = await adminApi().post('/admin/accounts').set(auth).send({ name: 'Keys', plan, ...extra });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function newKey(accountId: string, body?: object): Promise<{ id: string; key: string } & Record<string, unknown>> {
  const call = adminApi().post(`/admin/accounts/${accountId}/keys`).set(auth);
  const res = await (body === undefined ? call : call.send(body));
  expect(res.status).toBe(201);
  return res.body;
}

function expectError(res: request.Response, status: number, code: string, message: RegExp | string) {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { code, status, message: expect.any(String) } });
  expect(res.body.message).toMatch(message);
}

/** Whether a key gets past authentication and the limits (to the pets-service, absent here: 502). */
const passes = async (key: string) => (await publicCall('get', '/v1/pets', key)).status === 502;

const publicCall = (method: 'get' | 'post' | 'head' | 'delete' | 'put' | 'patch', path: string, key: string, ip = freshIp()) =>
  request(gateway.publicApp)[method](path).set('X-Forwarded-For', ip).set('Authorization', `Bearer ${key}`);

describe('POST /admin/accounts/{id}/keys with a name, an access level and an expiry', () => {
  it('when no body is sent, then the key is unnamed, read-write and never expires (as before this feature)', async () => {
    const key = await newKey(await newAccount());
    expect(key).toMatchObject({ name: null, access: 'read-write', expiresAt: null });
  });

  it('when every field is given, then the key carries them, the expiry in UTC, and the listing shows them, never the key', async () => {
    const accountId = await newAccount();
    const key = await newKey(accountId, { name: 'Grafana dashboard', access: 'read-only', expiresAt: '2999-06-30T14:00:00+02:00' });
    expect(key).toMatchObject({ name: 'Grafana dashboard', access: 'read-only', expiresAt: '2999-06-30T12:00:00.000Z' });
    const listed = await adminApi().get(`/admin/accounts/${accountId}/keys`).set(auth);
    expect(listed.body).toEqual([
      {
        id: key.id,
        name: 'Grafana dashboard',
        masked: expect.stringMatching(/^ask_live_…/),
        access: 'read-only',
        createdAt: expect.any(String),
        expiresAt: '2999-06-30T12:00:00.000Z',
        replacedBy: null,
        revokedAt: null,
        lastUsedAt: null,
        bannedUntil: null,
      },
    ]);
    expect(listed.text).not.toContain(key.key.slice(9, -4));
  });

  it('when an empty JSON object is sent, then it is the same as no body', async () => {
    expect(await newKey(await newAccount(), {})).toMatchObject({ name: null, access: 'read-write', expiresAt: null });
  });

  it.each([
    ['an unknown field', { scopes: ['pets:read'] }, /^scopes is not an accepted field\.$/],
    ['a bad access value', { access: 'write-only' }, /^access must be one of "read-write", "read-only"\.$/],
    ['a past expiresAt', { expiresAt: '2020-01-01T00:00:00Z' }, /^expiresAt must be in the future: 2020-01-01T00:00:00\.000Z has passed/],
    ['an expiresAt without a time zone', { expiresAt: '2999-01-01T00:00:00' }, /^expiresAt must be an RFC 3339 date and time with its time zone/],
    ['an impossible date', { expiresAt: '2999-02-30T00:00:00Z' }, /^expiresAt must be an RFC 3339 date/],
    ['a number for expiresAt', { expiresAt: 32503680000 }, /^expiresAt must be a string\.$/],
    ['a blank name', { name: '   ' }, /^name must not be empty or only white space\.$/],
    ['a name of 101 characters', { name: 'x'.repeat(101) }, /^name must have at most 100 characters\.$/],
  ])('when the body has %s, then 400 invalid_body naming the field, and no key is made', async (_what, body, message) => {
    const accountId = await newAccount();
    expectError(await adminApi().post(`/admin/accounts/${accountId}/keys`).set(auth).send(body), 400, 'invalid_body', message);
    expect((await adminApi().get(`/admin/accounts/${accountId}/keys`).set(auth)).body).toEqual([]);
  });

  it('when a body is sent that is not JSON, then 415; malformed JSON, 400 malformed_json', async () => {
    const accountId = await newAccount();
    const path = `/admin/accounts/${accountId}/keys`;
    expectError(await adminApi().post(path).set(auth).set('Content-Type', 'text/plain').send('name=x'), 415, 'unsupported_media_type', /application\/json/);
    expectError(await adminApi().post(path).set(auth).set('Content-Type', 'application/json').send('{"name":'), 400, 'malformed_json', /not valid JSON/);
  });

  it('when keys are created, then the audit trail records each with its actor, name, access and expiry (never the key)', async () => {
    const accountId = await newAccount();
    const key = await newKey(accountId, { name: 'CI', access: 'read-only', expiresAt: FAR_FUTURE });
    const trail = await adminApi().get(`/admin/audit?account=${accountId}`).set(auth);
    expect(trail.body[0]).toEqual({
      at: expect.any(String),
      actor: 'admin',
      action: 'key.created',
      target: key.id,
      accountId,
      before: null,
      after: { masked: `ask_live_…${key.key.slice(-4)}`, name: 'CI', access: 'read-only', expiresAt: FAR_FUTURE },
    });
  });
});

describe('POST /admin/keys/{keyId}/roll', () => {
  it('when a key is rolled, then 201 shows the new key once, with the same name and access, and the old key expires after the default day, naming it', async () => {
    const accountId = await newAccount();
    const old = await newKey(accountId, { name: 'Billing sync', access: 'read-only' });
    const before = Date.now();
    const res = await adminApi().post(`/admin/keys/${old.id}/roll`).set(auth);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^ask_live_/),
      accountId,
      createdAt: expect.any(String),
      environment: 'production',
      name: 'Billing sync',
      access: 'read-only',
      expiresAt: null,
      replaces: { id: old.id, expiresAt: expect.any(String) },
    });
    const graceEnds = Date.parse(res.body.replaces.expiresAt);
    expect(graceEnds).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(graceEnds).toBeLessThanOrEqual(Date.now() + 86_400_000);

    const listed = (await adminApi().get(`/admin/accounts/${accountId}/keys`).set(auth)).body as Array<Record<string, unknown>>;
    expect(listed.map(({ id, replacedBy, expiresAt, access, name }) => ({ id, replacedBy, expiresAt, access, name }))).toEqual([
      { id: old.id, replacedBy: res.body.id, expiresAt: res.body.replaces.expiresAt, access: 'read-only', name: 'Billing sync' },
      { id: res.body.id, replacedBy: null, expiresAt: null, access: 'read-only', name: 'Billing sync' },
    ]);
  });

  it('when a key is rolled with a grace period, then both keys work until it ends; with 0, the old key is refused at once with a message naming the new key', async () => {
    const accountId = await newAccount();
    const kept = await newKey(accountId);
    const rolled = await adminApi().post(`/admin/keys/${kept.id}/roll`).set(auth).send({ gracePeriodSeconds: 3600 });
    expect(rolled.body.replaces.expiresAt).toBe(new Date(Date.parse(rolled.body.createdAt) + 3_600_000).toISOString());
    expect(await passes(kept.key)).toBe(true);
    expect(await passes(rolled.body.key)).toBe(true);

    const stopped = await newKey(accountId);
    expect(await passes(stopped.key)).toBe(true); // cached now: the roll must reach the cache
    const replacement = await adminApi().post(`/admin/keys/${stopped.id}/roll`).set(auth).send({ gracePeriodSeconds: 0 });
    const refused = await publicCall('get', '/v1/pets', stopped.key);
    expectError(refused, 401, 'unauthorized', `This API key expired at ${replacement.body.replaces.expiresAt}: it was rolled, and its replacement is key ${replacement.body.id}; use that key.`);
    expect(refused.text).not.toContain(replacement.body.key);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer realm="animal-store", error="invalid_token"/);
    expect(await passes(replacement.body.key)).toBe(true);
  });

  it('when the new key is rolled in turn, then it works like any key (a chain of rolls)', async () => {
    const first = await newKey(await newAccount());
    const second = await adminApi().post(`/admin/keys/${first.id}/roll`).set(auth).send({ gracePeriodSeconds: 60 });
    const third = await adminApi().post(`/admin/keys/${second.body.id}/roll`).set(auth).send({ gracePeriodSeconds: 60 });
    expect(third.status).toBe(201);
    expect(third.body.replaces.id).toBe(second.body.id);
  });

  it('when an already rolled key is rolled again, then 409 conflict naming its replacement, and nothing changes', async () => {
    const accountId = await newAccount();
    const old = await newKey(accountId);
    const first = await adminApi().post(`/admin/keys/${old.id}/roll`).set(auth).send({ gracePeriodSeconds: 600 });
    const again = await adminApi().post(`/admin/keys/${old.id}/roll`).set(auth).send({ gracePeriodSeconds: 0 });
    expectError(again, 409, 'conflict', `Key ${old.id} was already rolled: its replacement is key ${first.body.id} (the old key works until ${first.body.replaces.expiresAt}). Roll ${first.body.id} instead, or revoke ${old.id} to end its grace period now.`);
    expect((await adminApi().get(`/admin/accounts/${accountId}/keys`).set(auth)).body).toHaveLength(2);
    expect(await passes(old.key)).toBe(true);
  });

  it('when a revoked key is rolled, then 409 conflict saying it is revoked', async () => {
    const old = await newKey(await newAccount());
    await adminApi().delete(`/admin/keys/${old.id}`).set(auth);
    expectError(await adminApi().post(`/admin/keys/${old.id}/roll`).set(auth), 409, 'conflict', new RegExp(`^Key ${old.id} was revoked at .*: a revoked key cannot be rolled\\. Create a new key instead\\.$`));
  });

  it('when an expired key is rolled, then 409 conflict saying when it expired', async () => {
    await gatewayOnTestClock();
    const old = await newKey(await newAccount(), { expiresAt: new Date(Date.now() + 1_000).toISOString() });
    moveClock(Date.parse(old.expiresAt as string) + 1);
    expectError(await adminApi().post(`/admin/keys/${old.id}/roll`).set(auth), 409, 'conflict', `Key ${old.id} expired at ${old.expiresAt as string}: an expired key cannot be rolled. Create a new key instead.`);
  });

  it('when the key is unknown or not a key id, then 404 not_found', async () => {
    expectError(await adminApi().post('/admin/keys/key_00000000000000000000/roll').set(auth), 404, 'not_found', 'No key with id "key_00000000000000000000".');
    expectError(await adminApi().post('/admin/keys/nonsense/roll').set(auth), 404, 'not_found', /nonsense/);
  });

  it.each([
    ['a grace period over 7 days', { gracePeriodSeconds: 604_801 }, /^gracePeriodSeconds must be at most 604800\.$/],
    ['a negative grace period', { gracePeriodSeconds: -1 }, /^gracePeriodSeconds must be at least 0\.$/],
    ['a fractional grace period', { gracePeriodSeconds: 1.5 }, /^gracePeriodSeconds must be an integer\.$/],
    ['an unknown field', { expiresAt: FAR_FUTURE }, /^expiresAt is not an accepted field\.$/],
  ])('when the body has %s, then 400 invalid_body naming the field, and nothing is rolled', async (_what, body, message) => {
    const old = await newKey(await newAccount());
    expectError(await adminApi().post(`/admin/keys/${old.id}/roll`).set(auth).send(body), 400, 'invalid_body', message);
    expect((await adminApi().post(`/admin/keys/${old.id}/roll`).set(auth).send({ gracePeriodSeconds: 604_800 })).status).toBe(201);
  });

  it('when another method is used, then 405 with Allow: POST', async () => {
    const res = await adminApi().get('/admin/keys/key_00000000000000000000/roll').set(auth);
    expectError(res, 405, 'method_not_allowed', /use POST/);
    expect(res.headers.allow).toBe('POST');
  });

  it('when a key is rolled, then the audit trail has the new key and the roll, with their actor', async () => {
    const accountId = await newAccount();
    const old = await newKey(accountId, { name: 'ETL' });
    const rolled = await adminApi().post(`/admin/keys/${old.id}/roll`).set(auth).send({ gracePeriodSeconds: 60 });
    const trail = (await adminApi().get(`/admin/audit?account=${accountId}`).set(auth)).body as Array<Record<string, unknown>>;
    expect(trail.slice(0, 2)).toEqual([
      { at: expect.any(String), actor: 'admin', action: 'key.rolled', target: old.id, accountId, before: { expiresAt: null, replacedBy: null }, after: { expiresAt: rolled.body.replaces.expiresAt, replacedBy: rolled.body.id } },
      {
        at: expect.any(String),
        actor: 'admin',
        action: 'key.created',
        target: rolled.body.id,
        accountId,
        before: null,
        after: { masked: `ask_live_…${(rolled.body.key as string).slice(-4)}`, name: 'ETL', access: 'read-write', expiresAt: null, rolledFrom: old.id },
      },
    ]);
  });
});

describe('the /v1 pipeline and the key policy', () => {
  it('when a key expires, then it is refused on time, from the cache, with no store round trip, and charged as an anonymous request', async () => {
    const resolveKey = jest.spyOn(MemoryAccountStore.prototype, 'resolveKey');
    try {
      await gatewayOnTestClock();
      const key = await newKey(await newAccount(), { expiresAt: new Date(Date.now() + 1_000).toISOString() });
      const ip = freshIp();
      // 502: past authentication and the limits, to the pets-service this test does not run.
      expect((await publicGet(gateway, '/v1/pets', ip, key.key)).status).toBe(502);
      expect(resolveKey).toHaveBeenCalledTimes(1);
      // To the expiry instant (expired from it on), well within the cache entry's 30 s: refused from the cache, on time.
      moveClock(Date.parse(key.expiresAt as string));
      const refused = await publicGet(gateway, '/v1/pets', ip, key.key);
      expectError(refused, 401, 'unauthorized', `This API key expired at ${key.expiresAt as string}; use another key of the account, or create one.`);
      expect(resolveKey).toHaveBeenCalledTimes(1);
      // Refused like a revoked key: limited by the client's anonymous budget, not the account's quota.
      expect(limitsOf(refused)).toMatchObject({ limit: 1000, policy: '"minute";q=1000;w=60' });
    } finally {
      resolveKey.mockRestore();
    }
  });

  it('when an expired key is not cached, then it is looked up once and refused with its expiry', async () => {
    await gatewayOnTestClock();
    const key = await newKey(await newAccount(), { expiresAt: new Date(Date.now() + 1_000).toISOString() });
    moveClock(Date.parse(key.expiresAt as string) + 1);
    expectError(await publicGet(gateway, '/v1/pets', freshIp(), key.key), 401, 'unauthorized', /^This API key expired at /);
  });

  it('when a read-only key reads, then it is served; when it writes, then 403 forbidden after rate limiting: counted, with the rate-limit headers', async () => {
    const key = await newKey(await newAccount(), { access: 'read-only' });
    expect((await publicCall('get', '/v1/openapi.json', key.key)).status).toBe(200);
    expect((await publicCall('head', '/v1/openapi.json', key.key)).status).toBe(200);
    expect((await publicCall('get', '/v1/pets', key.key)).status).toBe(502); // past the policy, to the (absent) pets-service

    const refused = await publicCall('post', '/v1/pets', key.key).send({ name: 'Rex', categoryId: 1 });
    expectError(refused, 403, 'forbidden', 'This API key is read-only: it may only GET and HEAD, so POST is refused. Use a read-write key to make changes.');
    expect(refused.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
    expect(limitsOf(refused)).toEqual({ limit: 60, remaining: 56, policy: '"minute";q=60;w=60, "day";q=1000;w=86400' });
    for (const method of ['put', 'patch', 'delete'] as const) expect((await publicCall(method, '/v1/pets/1', key.key)).status).toBe(403);
    // Any other method on /v1, whatever the path: the key is refused before routing.
    expect((await publicCall('post', '/v1/store/orders', key.key)).status).toBe(403);
    expect(limitsOf(await publicCall('get', '/v1/openapi.json', key.key)).remaining).toBe(51);
  });

  it('when a read-only key writes over its account\'s limit, then 429 (the limit comes first), and a read-write key is never refused for writing', async () => {
    const accountId = await newAccount('enterprise', { perMinute: 1, perDay: 100 });
    const readOnly = await newKey(accountId, { access: 'read-only' });
    expect((await publicCall('post', '/v1/pets', readOnly.key)).status).toBe(403);
    expect((await publicCall('post', '/v1/pets', readOnly.key)).status).toBe(429);

    const writer = await newKey(await newAccount(), { access: 'read-write' });
    expect((await publicCall('post', '/v1/pets', writer.key).send({ name: 'Rex', categoryId: 1 })).status).toBe(502);
  });

  it('when a key is rolled, then the replacement keeps the read-only access', async () => {
    const old = await newKey(await newAccount(), { access: 'read-only' });
    const rolled = await adminApi().post(`/admin/keys/${old.id}/roll`).set(auth).send({ gracePeriodSeconds: 60 });
    expect((await publicCall('post', '/v1/pets', rolled.body.key)).status).toBe(403);
  });
});
