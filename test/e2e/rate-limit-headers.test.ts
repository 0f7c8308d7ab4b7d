import { freePort } from '../helpers/ports';
import { createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, expectError, nextUtcMidnightSeconds, rateLimitOf, type CallOptions } from '../helpers/traffic';

/**
 * Every /v1 response, whatever its status, carries X-RateLimit-Limit/Remaining/Reset, RateLimit-Policy
 * and RateLimit, describing the window with the fewest requests remaining.
 */
const ANON_PER_MINUTE = 50;
let system: SystemHandle;
let gateway: GatewayHandle;
/** A second replica on the same Redis whose pets-service address has nobody listening: every proxied request is a 502. */
let broken: GatewayHandle;

beforeAll(async () => {
  system = await startSystem({ redis: true, gatewayEnv: { ANON_PER_MINUTE: String(ANON_PER_MINUTE) } });
  gateway = system.gateways[0]!;
  broken = await system.startGateway({ PETS_URL: `http://127.0.0.1:${await freePort()}` });
});

afterAll(async () => {
  await system?.stop();
});

interface Case {
  what: string;
  via?: () => GatewayHandle;
  path: string;
  options?: CallOptions;
  status: number;
  code?: string;
  check?: (headers: Record<string, string>) => void;
}

const CASES: Case[] = [
  { what: '200 list', path: '/v1/pets', status: 200 },
  {
    what: '201 create',
    path: '/v1/pets',
    options: { method: 'POST', body: { name: 'Rex', categoryId: 1 } },
    status: 201,
    check: (h) => expect(h['location']).toMatch(/^\/v1\/pets\/\d+$/),
  },
  { what: '400 invalid_parameter', path: '/v1/pets?limit=0', status: 400, code: 'invalid_parameter' },
  { what: '404 unknown path', path: '/v1/nothing-here', status: 404, code: 'not_found' },
  { what: '405 wrong method', path: '/v1/pets', options: { method: 'DELETE' }, status: 405, code: 'method_not_allowed', check: (h) => expect(h['allow']).toContain('GET') },
  { what: '501 store', path: '/v1/store/orders', status: 501, code: 'not_implemented' },
  { what: '404 getPet not found', path: '/v1/pets/987654321', status: 404, code: 'not_found', check: (h) => expect(h['deprecation']).toBeDefined() },
  { what: '502 upstream down', via: () => broken, path: '/v1/pets', status: 502, code: 'bad_gateway' },
];

describe('rate-limit headers on every /v1 response (real processes, real Redis)', () => {
  it('when one Free account gets every kind of answer (200, 201, 400, 404, 405, 501, 404 getPet, 502), then each carries the headers and Remaining drops by exactly one per request', async () => {
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'free' });

    let expectedRemaining = 60;
    for (const c of CASES) {
      const reply = await call(`${(c.via?.() ?? gateway).url}${c.path}`, { ...c.options, key });
      expectedRemaining -= 1;
      const context = `${c.what}: ${reply.status} ${reply.text.slice(0, 200)}`;
      expect({ context, status: reply.status }).toEqual({ context, status: c.status });
      if (c.code) expectError(reply, c.status, c.code);
      c.check?.(reply.headers);

      const view = rateLimitOf(reply);
      // 60/min and 1,000/day: the minute window has the fewest remaining, so it is the one shown.
      expect({ context, ...view, retryAfter: undefined }).toMatchObject({
        context,
        limit: 60,
        remaining: expectedRemaining,
        policy: '"minute";q=60;w=60, "day";q=1000;w=86400',
        rateLimit: { name: 'minute', r: expectedRemaining },
      });
      expect(view.reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    }
  });

  it('when a request has no API key, then its 401 carries the anonymous per-IP limit (ANON_PER_MINUTE)', async () => {
    const first = await call(`${gateway.url}/v1/pets`);
    const second = await call(`${gateway.url}/v1/pets`, { headers: { authorization: 'Bearer not-a-key' } });

    for (const reply of [first, second]) {
      expectError(reply, 401, 'unauthorized');
      expect(reply.headers['www-authenticate']).toMatch(/^Bearer/);
      const view = rateLimitOf(reply);
      expect(view).toMatchObject({ limit: ANON_PER_MINUTE, policy: `"minute";q=${ANON_PER_MINUTE};w=60`, rateLimit: { name: 'minute' } });
    }
    expect(rateLimitOf(second).remaining).toBe(rateLimitOf(first).remaining - 1);
  });

  it('when an account has perMinute 5 and perDay 3, then the day window is shown while accepted and on the 429', async () => {
    const { key } = await createAccountWithKey(gateway.adminUrl, { plan: 'free', perMinute: 5, perDay: 3 });
    const policy = '"minute";q=5;w=60, "day";q=3;w=86400';

    for (const expected of [2, 1, 0]) {
      const reply = await call(`${gateway.url}/v1/pets`, { key });
      expect(reply.status).toBe(200);
      const view = rateLimitOf(reply);
      expect(view).toMatchObject({ limit: 3, remaining: expected, policy, rateLimit: { name: 'day', r: expected } });
      expect(view.reset).toBe(nextUtcMidnightSeconds(Date.now()));
    }

    const refused = await call(`${gateway.url}/v1/pets`, { key });
    const now = Date.now();
    expectError(refused, 429, 'rate_limited');
    const view = rateLimitOf(refused, now);
    expect(view).toMatchObject({ limit: 3, remaining: 0, policy, rateLimit: { name: 'day', r: 0 } });
    expect(view.reset).toBe(nextUtcMidnightSeconds(now));
    expect(view.retryAfter).toBeGreaterThanOrEqual(1);
    // A refused request costs nothing: the next one is refused with the same picture.
    const again = rateLimitOf(await call(`${gateway.url}/v1/pets`, { key }));
    expect(again).toMatchObject({ limit: 3, remaining: 0, rateLimit: { name: 'day', r: 0 } });
  });
});
