import request from 'supertest';
import { createAdminApp } from '../src/admin/app';
import { TokenFailures } from '../src/admin/token-failures';
import { ADMIN_TOKEN, adminApi, adminLogger, expectError, type AdminApi } from './support/admin-api';
import { opsParts } from './support/ops';
import { SHARED_TOKEN_ACTOR } from '../src/admin/tokens';

/**
 * Who the admin port answers: the admin token (and nothing else) in the Authorization header,
 * a back-off per address for wrong tokens, and only a Host that names the admin port itself.
 */

let ctx: AdminApi;
beforeEach(() => {
  ctx = adminApi();
});

describe('admin authentication', () => {
  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer wrong-${ADMIN_TOKEN}`],
    ['a prefix of the token', `Bearer ${ADMIN_TOKEN.slice(0, -1)}`],
    ['another scheme', `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`],
    ['the token without a scheme', ADMIN_TOKEN],
    ['an empty bearer token', 'Bearer'],
  ])('when the request carries %s, then 401 unauthorized with WWW-Authenticate: Bearer', async (_what, header) => {
    const req = ctx.api.get('/admin/plans');
    const res = await (header === undefined ? req : req.set('Authorization', header));
    expectError(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer( |$)/);
  });

  it('when the scheme is written in lower case with extra spaces, then the token is accepted', async () => {
    const res = await ctx.api.get('/admin/plans').set('Authorization', `bearer    ${ADMIN_TOKEN}`);
    expect(res.status).toBe(200);
  });

  it('when an unknown admin path or a wrong method is used without a token, then 401 comes first', async () => {
    expectError(await ctx.api.get('/admin/nowhere'), 401, 'unauthorized');
    expectError(await ctx.api.delete('/admin/plans'), 401, 'unauthorized');
  });

  it('when two Authorization headers are sent, the first one valid, then 401 (ambiguous, as on the public port), not the first one wins', async () => {
    // superagent hands an array on to Node, which sends one header line per value (checked: two lines).
    const res = await ctx.api.get('/admin/plans').set('Authorization', [`Bearer ${ADMIN_TOKEN}`, 'Bearer other'] as unknown as string);
    expectError(res, 401, 'unauthorized');
  });

  it('when the token is given in the query string, then it is not accepted', async () => {
    expectError(await ctx.api.get(`/admin/plans?access_token=${ADMIN_TOKEN}`), 401, 'unauthorized');
  });

  it('when the admin token is empty, then the app refuses to be built', () => {
    expect(() => createAdminApp({ service: ctx.service, reports: opsParts().reports, adminTokens: [{ name: SHARED_TOKEN_ACTOR, token: '' }], logger: adminLogger })).toThrow(/admin token/);
    expect(() => createAdminApp({ service: ctx.service, reports: opsParts().reports, adminTokens: [], logger: adminLogger })).toThrow(/admin token/);
  });
});

describe('wrong tokens back off (per address)', () => {
  const limited = () => request(createAdminApp({ ...opsParts(), adminTokens: [{ name: SHARED_TOKEN_ACTOR, token: ADMIN_TOKEN }], logger: adminLogger, tokenFailures: new TokenFailures({ failures: 5, windowSeconds: 300 }) }));

  it('when an address has sent as many wrong tokens as allowed, then its next request is refused 429 with Retry-After, the right token too', async () => {
    const api = limited();
    for (let i = 0; i < 5; i += 1) expectError(await api.get('/admin/plans').set('Authorization', `Bearer guess-${i}-0123456789abcdef`), 401, 'unauthorized');
    const refused = await api.get('/admin/plans').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
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
      expect((await api.get('/admin/plans').set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
      expect((await api.get('/admin/plans')).status).toBe(401);
    }
    for (let i = 0; i < 4; i += 1) expect((await api.get('/admin/plans').set('Authorization', 'Bearer wrong-0123456789abcdef')).status).toBe(401);
    expect((await api.get('/admin/plans').set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
  });
});

describe('the Host the admin port answers to', () => {
  const withHosts = (options: { adminHost?: string; allowedHosts?: string[] } = {}) => request(createAdminApp({ ...opsParts(), adminTokens: [{ name: SHARED_TOKEN_ACTOR, token: ADMIN_TOKEN }], logger: adminLogger, ...options }));

  it.each(['evil.example', 'evil.example:8081', '127.0.0.1.nip.io:8081', 'localhost.evil.example', '10.0.0.5:8081'])(
    'when Host is %s (a DNS-rebinding page, or a name nobody listed), then 400 invalid_parameter naming it, with the right token and for the console',
    async (host) => {
      const api = withHosts();
      const res = await api.get('/admin/plans').set('Host', host).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      expectError(res, 400, 'invalid_parameter', `the Host "${host}"`);
      expect(res.body.message).toContain('ADMIN_ALLOWED_HOSTS');
      expectError(await api.get('/console').set('Host', host), 400, 'invalid_parameter');
    },
  );

  it.each(['127.0.0.1:8081', 'localhost:8081', 'LOCALHOST', 'localhost.:9999', '[::1]:8081', '127.0.0.1'])('when Host is %s (the CLI, the console, curl), then it is answered', async (host) => {
    expect((await withHosts().get('/admin/plans').set('Host', host).set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
  });

  it('when Host is the admin address or a name in ADMIN_ALLOWED_HOSTS, then it is answered', async () => {
    const api = withHosts({ adminHost: '10.0.0.5', allowedHosts: ['ops.internal'] });
    expect((await api.get('/admin/plans').set('Host', '10.0.0.5:8081').set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
    expect((await api.get('/admin/plans').set('Host', 'ops.internal:8081').set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
    expectError(await api.get('/admin/plans').set('Host', 'other.internal').set('Authorization', `Bearer ${ADMIN_TOKEN}`), 400, 'invalid_parameter');
  });
});
