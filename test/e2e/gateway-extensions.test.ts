import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from '../helpers/ports';
import { COMPILED, ROOT, ServiceProcess } from '../helpers/processes';
import { TEST_SECRET, createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, expectError, hasRateLimitHeaders, rateLimitOf, type CallOptions, type Reply } from '../helpers/traffic';

/**
 * The operator's own middleware (GATEWAY_MIDDLEWARE), browsers (CORS_ORIGINS) and absolute links
 * (PUBLIC_BASE_URL on the gateway alone), through the real gateway and pets-service processes
 * (CONTRACT "Extending the gateway", "Browsers (CORS)", the settings table; docs/extending.md).
 */

const ORIGIN = 'https://app.example.com';
const BASE = 'https://api.animalstore.example/v1';
const EXPOSED = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'Link', 'Location', 'Deprecation', 'Sunset', 'Idempotent-Replayed'];

/** The worked example of docs/extending.md, exactly as the page shows it. */
function documentedExample(): string {
  const page = readFileSync(path.join(ROOT, 'docs/extending.md'), 'utf8');
  const match = /<!-- example: ip-allowlist\.js[^>]*-->\s*```js\n([\s\S]*?)```/.exec(page);
  if (!match?.[1]) throw new Error('docs/extending.md has no ip-allowlist.js example');
  return match[1];
}

/** An ES module with top-level await (only `import()` loads it): it stamps the answer, then fails on request. */
const STAMP_MJS = `
const header = await Promise.resolve('X-Account-Plan');
export default [
  function stamp(req, res, next) {
    res.setHeader(header, res.locals.apiKey.plan);
    res.setHeader('X-Seen-Path', req.path);
    next();
  },
  function throwsAtOnce(req, _res, next) {
    if (req.get('x-test-fault') === 'throw') throw new TypeError('a bug in a plugin: sync');
    next();
  },
  async function faults(req, res, next) {
    switch (req.get('x-test-fault')) {
      case 'reject': throw new Error('a bug in a plugin: async');
      case 'next': return next(new Error('a bug in a plugin: next'));
      case 'server-status': return next(Object.assign(new Error('secret internals'), { status: 503, code: 'down' }));
      case 'teapot': return next(Object.assign(new Error('No tea here.'), { status: 418, code: 'no_tea' }));
      case 'crlf-header': return next(Object.assign(new Error('x'), { status: 416, headers: { 'Content-Range': 'bytes */1\\r\\nX-Evil: 1' } }));
      case 'timer':
        setTimeout(() => { throw new Error('a bug in a plugin: timer'); }, 10);
        return next();
      case 'answer': return res.status(202).json({ answeredBy: 'plugin' });
      default: return next();
    }
  },
];
`;
/** CommonJS as tsc compiles `export default`: `exports.default` under `__esModule`. */
const COMPILED_CJS = `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.default = function compiled(_req, res, next) { res.setHeader('X-Compiled', 'yes'); next(); };
`;

const corsFields = (reply: Reply) => Object.keys(reply.headers).filter((name) => name.startsWith('access-control-'));
const listOf = (value: string | undefined) => (value ?? '').split(',').map((item) => item.trim().toLowerCase());

describe('the gateway extended: operator middleware, browsers, public links', () => {
  let dir: string;
  let system: SystemHandle;
  let plain: GatewayHandle;
  let extended: GatewayHandle;
  let allowlisted: { accountId: string; key: string };
  let unlisted: { accountId: string; key: string };
  const v1 = (gateway: GatewayHandle, pathname: string, options?: CallOptions) => call(`${gateway.url}/v1${pathname}`, options);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'gateway-middleware-'));
    writeFileSync(path.join(dir, 'ip-allowlist.js'), documentedExample());
    writeFileSync(path.join(dir, 'stamp.mjs'), STAMP_MJS);
    writeFileSync(path.join(dir, 'compiled.js'), COMPILED_CJS);
    // Redis, so that the accounts exist before the extended gateway starts with their ids in IP_ALLOWLIST.
    system = await startSystem({ redis: true });
    plain = system.gateways[0]!;
    allowlisted = await createAccountWithKey(plain.adminUrl, { plan: 'pro' });
    unlisted = await createAccountWithKey(plain.adminUrl, { plan: 'free' });
    extended = await system.startGateway({
      // The documented example relative to the working directory, the others absolute.
      GATEWAY_MIDDLEWARE: [path.relative(ROOT, path.join(dir, 'ip-allowlist.js')), path.join(dir, 'stamp.mjs'), path.join(dir, 'compiled.js')].join(','),
      IP_ALLOWLIST: `${allowlisted.accountId}=127.0.0.2 10.0.0.0/8`,
      CORS_ORIGINS: `${ORIGIN},http://localhost:3000`,
      PUBLIC_BASE_URL: BASE,
      LOG_LEVEL: 'info',
    });
  }, 60_000);
  afterAll(async () => {
    await system?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('GATEWAY_MIDDLEWARE', () => {
    it('when a listed account calls from an allowed address, then every module ran, in order, and what they set is on the pets-service answer', async () => {
      const reply = await v1(extended, '/pets', { key: allowlisted.key, localAddress: '127.0.0.2' });
      expect(reply.status).toBe(200);
      expect(reply.headers['x-account-plan']).toBe('pro');
      expect(reply.headers['x-seen-path']).toBe('/pets');
      expect(reply.headers['x-compiled']).toBe('yes');
      expect(hasRateLimitHeaders(reply)).toBe(true);
    });

    it('when it calls from another address, then the example refuses it with its own 403 code and message, the rate-limit headers, counted, and later modules do not run', async () => {
      const before = rateLimitOf(await v1(extended, '/pets', { key: allowlisted.key, localAddress: '127.0.0.2' }));
      const reply = await v1(extended, '/pets', { key: allowlisted.key, localAddress: '127.0.0.1' });
      expectError(reply, 403, 'address_not_allowed');
      expect(reply.json).toEqual({ code: 'address_not_allowed', message: "This account's keys may not be used from 127.0.0.1.", status: 403 });
      expect(hasRateLimitHeaders(reply)).toBe(true);
      expect(rateLimitOf(reply).remaining).toBe(before.remaining - 1);
      expect(reply.headers['x-account-plan']).toBeUndefined();
      expect(reply.headers['x-request-id']).toBeTruthy();
    });

    it('when an account is not listed, then it is served from anywhere, and res.locals.apiKey names its plan', async () => {
      const reply = await v1(extended, '/pets', { key: unlisted.key });
      expect(reply.status).toBe(200);
      expect(reply.headers['x-account-plan']).toBe('free');
    });

    it('when a request is refused before them (no key), then no module runs', async () => {
      const reply = await v1(extended, '/pets');
      expectError(reply, 401, 'unauthorized');
      expect(reply.headers['x-account-plan']).toBeUndefined();
    });

    it('when a module passes a 4xx error with a code, then that is the answer; when it answers itself, that answer stands', async () => {
      const teapot = await v1(extended, '/pets', { key: unlisted.key, headers: { 'X-Test-Fault': 'teapot' } });
      expect(teapot.json).toEqual({ code: 'no_tea', message: 'No tea here.', status: 418 });
      expect(teapot.status).toBe(418);
      expect(hasRateLimitHeaders(teapot)).toBe(true);
      expect(teapot.headers['x-account-plan']).toBe('free');
      const answered = await v1(extended, '/pets', { key: unlisted.key, headers: { 'X-Test-Fault': 'answer' } });
      expect(answered.status).toBe(202);
      expect(answered.json).toEqual({ answeredBy: 'plugin' });
      expect(hasRateLimitHeaders(answered)).toBe(true);
    });

    it.each([['throw'], ['reject'], ['next'], ['server-status']])('when a module fails (%s), then 500 internal_error with nothing of it in the body, logged', async (fault) => {
      const reply = await v1(extended, '/pets', { key: unlisted.key, headers: { 'X-Test-Fault': fault } });
      expectError(reply, 500, 'internal_error');
      expect(reply.text).not.toMatch(/plugin|secret|internals/);
      expect(hasRateLimitHeaders(reply)).toBe(true);
      const logged = fault === 'server-status' ? 'secret internals' : `a bug in a plugin: ${{ throw: 'sync', reject: 'async', next: 'next' }[fault]}`;
      // 15 s, not 5: the line comes through the gateway's stdout pipe, which a loaded machine (CI beside
      // other suites) may deliver late; waitFor returns as soon as it is there.
      await waitFor(() => extended.process.output.includes(logged), 15_000, `the log line "${logged}"`);
    });

    it('when a module passes an error whose header Node refuses, then the Error shape 500, never Express\'s HTML page (the process runs in development)', async () => {
      const reply = await v1(extended, '/pets', { key: unlisted.key, headers: { 'X-Test-Fault': 'crlf-header' } });
      expectError(reply, 500, 'internal_error');
      expect(reply.headers['x-evil']).toBeUndefined();
      expect(reply.text).not.toMatch(/<html|<pre|at /i);
    });

    it('when a module throws in a timer, outside any request, then the error is logged through pino and the gateway keeps serving', async () => {
      expect((await v1(extended, '/pets', { key: unlisted.key, headers: { 'X-Test-Fault': 'timer' } })).status).toBe(200);
      // 15 s, not 5, as above: the timer and the log pipe are the loaded machine's to schedule.
      await waitFor(() => /"level":50[^\n]*a bug in a plugin: timer/.test(extended.process.output), 15_000, 'the logged timer error');
      expect(extended.process.output).toContain('an error nobody caught (outside any request); logged, the process keeps serving');
      expect((await call(`${extended.url}/healthz`)).status).toBe(200);
      expect((await v1(extended, '/pets', { key: unlisted.key })).status).toBe(200);
    });

    it('when modules cannot be loaded or export no middleware, then the gateway refuses to start, naming every one', async () => {
      const broken = {
        missing: path.join(dir, 'missing.js'),
        notMiddleware: path.join(dir, 'not-middleware.js'),
        throwsAtLoad: path.join(dir, 'throws-at-load.mjs'),
        errorHandler: path.join(dir, 'error-handler.js'),
        empty: path.join(dir, 'empty.mjs'),
      };
      writeFileSync(broken.notMiddleware, 'module.exports = { hello: "world" };\n');
      writeFileSync(broken.throwsAtLoad, 'throw new Error("cannot read my configuration");\n');
      writeFileSync(broken.errorHandler, 'module.exports = (err, req, res, next) => next(err);\n');
      writeFileSync(broken.empty, 'export default [];\n');
      const gateway = ServiceProcess.spawn(COMPILED.gateway, { PORT: '0', ADMIN_PORT: '0', INTERNAL_JWT_SECRET: TEST_SECRET, GATEWAY_MIDDLEWARE: [...Object.values(broken), path.join(dir, 'stamp.mjs')].join(',') });
      expect(await gateway.waitForExit()).toBe(1);
      expect(gateway.output).toContain('gateway: refusing to start');
      const problems = gateway.output.split('\n').filter((line) => line.includes('GATEWAY_MIDDLEWARE'));
      expect(problems).toEqual([
        expect.stringContaining(`the module "${broken.missing}"`),
        expect.stringMatching(new RegExp(`the module "${broken.notMiddleware}" exports no middleware: its default export is object`)),
        expect.stringMatching(new RegExp(`the module "${broken.throwsAtLoad}" could not be loaded: cannot read my configuration`)),
        expect.stringMatching(new RegExp(`the module "${broken.errorHandler}" exports no middleware: its default export takes 4 parameters, an error handler`)),
        expect.stringMatching(new RegExp(`the module "${broken.empty}" exports an empty array`)),
      ]);
      expect(gateway.output).not.toContain('stamp.mjs');
    });
  });

  describe('CORS_ORIGINS', () => {
    const preflight = (gateway: GatewayHandle, origin: string, pathname = '/pets', localAddress?: string) =>
      v1(gateway, pathname, {
        method: 'OPTIONS',
        localAddress,
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key' },
      });

    it('when a listed origin sends a preflight, then 204 with the origin, the methods, the headers and a max age, and no credentials', async () => {
      const reply = await preflight(extended, ORIGIN);
      expect(reply.status).toBe(204);
      expect(reply.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(listOf(reply.headers['access-control-allow-methods'])).toEqual(expect.arrayContaining(['get', 'post']));
      expect(listOf(reply.headers['access-control-allow-headers'])).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']));
      expect(Number(reply.headers['access-control-max-age'])).toBeGreaterThan(0);
      expect(reply.headers['access-control-allow-credentials']).toBeUndefined();
      expect(reply.text).toBe('');
      // Not a preflight (no Access-Control-Request-Method): an ordinary request, answered by the API, with the actual-answer fields.
      const options = await v1(extended, '/pets', { method: 'OPTIONS', headers: { Origin: ORIGIN } });
      expectError(options, 401, 'unauthorized');
      expect(options.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(options.headers['access-control-expose-headers']).toBeDefined();
      expect(options.headers['access-control-max-age']).toBeUndefined();
    });

    it('when preflights come past the anonymous limit, then every one is 204 and none is counted (no key, no quota)', async () => {
      // An address of its own: its anonymous budget (60 a minute) is this test's alone.
      const replies: Reply[] = [];
      for (let i = 0; i < 70; i += 1) replies.push(await preflight(extended, ORIGIN, '/pets/1', '127.0.0.3'));
      expect(new Set(replies.map((r) => r.status))).toEqual(new Set([204]));
      const anonymous = await v1(extended, '/pets', { localAddress: '127.0.0.3' });
      expectError(anonymous, 401, 'unauthorized');
      expect(rateLimitOf(anonymous)).toMatchObject({ limit: 60, remaining: 59 });
    });

    it('when a listed origin gets any other answer (200, 401, 403 of a module), then it carries Allow-Origin and exposes the fields scripts need', async () => {
      for (const reply of [
        await v1(extended, '/pets', { key: unlisted.key, headers: { Origin: ORIGIN } }),
        await v1(extended, '/pets', { headers: { Origin: ORIGIN } }),
        await v1(extended, '/pets', { key: allowlisted.key, headers: { Origin: ORIGIN } }),
      ]) {
        expect(reply.headers['access-control-allow-origin']).toBe(ORIGIN);
        expect(listOf(reply.headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(EXPOSED.map((name) => name.toLowerCase())));
        expect(listOf(reply.headers.vary)).toContain('origin');
        expect(reply.headers['access-control-allow-credentials']).toBeUndefined();
      }
    });

    it('when an origin is not listed, then no Access-Control-* field, on a preflight (an ordinary request then) or an answer', async () => {
      const refused = await preflight(extended, 'https://evil.example');
      expectError(refused, 401, 'unauthorized');
      expect(corsFields(refused)).toEqual([]);
      const served = await v1(extended, '/pets', { key: unlisted.key, headers: { Origin: 'https://app.example.com.evil.example' } });
      expect(served.status).toBe(200);
      expect(corsFields(served)).toEqual([]);
    });

    it('when CORS_ORIGINS is unset, then no Access-Control-* field at all', async () => {
      const refused = await preflight(plain, ORIGIN);
      expect(refused.status).toBe(401);
      expect(corsFields(refused)).toEqual([]);
      const served = await v1(plain, '/pets', { key: unlisted.key, headers: { Origin: ORIGIN } });
      expect(served.status).toBe(200);
      expect(corsFields(served)).toEqual([]);
    });
  });

  describe('PUBLIC_BASE_URL set on the gateway alone (the pets-service has none)', () => {
    const create = (gateway: GatewayHandle, headers: Record<string, string> = {}) =>
      v1(gateway, '/pets', { key: unlisted.key, method: 'POST', body: { name: 'Linked', categoryId: 1 }, headers });

    it('when a pet is created, replayed or listed page by page, then Location and Link are absolute on it', async () => {
      const created = await create(extended);
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe(`${BASE}/pets/${created.json!.id}`);
      const idempotencyKey = `links-${process.pid}-${Date.now()}`;
      const first = await create(extended, { 'Idempotency-Key': idempotencyKey });
      const replayed = await create(extended, { 'Idempotency-Key': idempotencyKey });
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.headers.location).toBe(`${BASE}/pets/${first.json!.id}`);
      const page = await v1(extended, '/pets?limit=1', { key: unlisted.key });
      expect(page.headers.link).toMatch(new RegExp(`^<${BASE.replace(/[.]/g, '\\.')}/pets\\?limit=1&cursor=[^>]+>; rel="next"$`));
      const next = await call(/^<([^>]+)>/.exec(page.headers.link!)![1]!.replace(BASE, `${extended.url}/v1`), { key: unlisted.key });
      expect(next.status).toBe(200);
    });

    it("when the deprecated path answers, the pets-service's 200 or the gateway's own 401, then its successor link is absolute too", async () => {
      for (const reply of [await v1(extended, `/pets/1`, { key: unlisted.key }), await v1(extended, '/pets/1')]) {
        expect(reply.headers.link).toBe(`<${BASE}/pets>; rel="successor-version"`);
      }
    });

    it('when the gateway has no PUBLIC_BASE_URL, then the links stay relative', async () => {
      const created = await create(plain);
      expect(created.headers.location).toBe(`/v1/pets/${created.json!.id}`);
      expect((await v1(plain, '/pets?limit=1', { key: unlisted.key })).headers.link).toMatch(/^<\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/);
    });
  });
});
