import request from 'supertest';
import { createLogger } from '../../shared/src/logger';
import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { PrincipalResolver } from '../src/accounts/principal-resolver';
import { AccountService } from '../src/admin/account-service';
import { createApp } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import type { Gateway } from '../src/gateway';
import { generateApiKey } from '../src/keys/api-key';
import { MemoryLimiter } from '../src/limits/memory-limiter';
import { createMetrics } from '../src/metrics';
import { Forwarder } from '../src/upstream/forwarder';
import { ReplicaSet } from '../src/upstream/replicas';
import { TestRedis } from '../../test/helpers/redis-server';
import { ADMIN_TOKEN, createKey, limitsOf, publicGet, startGateway } from './support/gateway';

/**
 * A request whose key the caches do not know is charged to its client's anonymous budget before
 * the store is asked about the key; over that budget, the store is never asked.
 */
const ANON = 3;
const ANON_POLICY = `"minute";q=${ANON};w=60`;
const FREE_POLICY = '"minute";q=60;w=60, "day";q=1000;w=86400';
let lastIp = 0;
/** A client address (TEST-NET-2) no other test of this file uses. */
const freshIp = () => `198.51.100.${++lastIp}`;

function expectAnonymous(res: request.Response, status: number, code: string, remaining: number): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(limitsOf(res)).toEqual({ limit: ANON, remaining, policy: ANON_POLICY });
  expect(res.headers['ratelimit']).toMatch(new RegExp(`^"minute";r=${remaining};t=\\d+$`));
}

describe('the anonymous budget pays for key lookups (in process)', () => {
  let gateway: Gateway;
  let resolveKey: jest.SpyInstance;

  beforeEach(async () => {
    gateway = await startGateway({ ANON_PER_MINUTE: String(ANON) });
    // The real store, watched: every call still goes through to it.
    resolveKey = jest.spyOn(MemoryAccountStore.prototype, 'resolveKey');
  });

  afterEach(async () => {
    resolveKey.mockRestore();
    await gateway.close();
  });

  it('when an IP over its anonymous limit sends fresh well-formed keys, then each gets 429 with the anonymous headers and the store is never asked', async () => {
    const ip = freshIp();
    for (let i = 0; i < ANON; i++) expectAnonymous(await publicGet(gateway, '/v1/pets', ip, generateApiKey()), 401, 'unauthorized', ANON - 1 - i);
    expect(resolveKey).toHaveBeenCalledTimes(ANON);
    resolveKey.mockClear();

    for (let i = 0; i < 20; i++) {
      const res = await publicGet(gateway, '/v1/pets', ip, generateApiKey());
      expectAnonymous(res, 429, 'rate_limited', 0);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(resolveKey).not.toHaveBeenCalled();
  });

  it('when a valid key is not cached, then it costs one anonymous unit for its lookup and one request of its account; cached, no anonymous unit', async () => {
    const { key } = await createKey(gateway);
    const ip = freshIp();
    const first = await publicGet(gateway, '/v1/openapi.json', ip, key);
    expect(first.status).toBe(200);
    expect(limitsOf(first)).toEqual({ limit: 60, remaining: 59, policy: FREE_POLICY });
    for (let i = 0; i < 5; i++) expect(limitsOf(await publicGet(gateway, '/v1/openapi.json', ip, key)).remaining).toBe(58 - i);
    expect(resolveKey).toHaveBeenCalledTimes(1);
    // The lookup took one unit of this IP's anonymous budget; the cached requests took none.
    expectAnonymous(await publicGet(gateway, '/v1/pets', ip), 401, 'unauthorized', ANON - 2);
  });

  it('when a client starts with many concurrent requests on a new valid key, then they share one lookup that costs one anonymous unit', async () => {
    const { key } = await createKey(gateway, 'pro');
    const ip = freshIp();
    const replies = await Promise.all(Array.from({ length: 20 }, () => publicGet(gateway, '/v1/openapi.json', ip, key)));
    expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(replies.map((r) => limitsOf(r).remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 280 + i));
    expect(resolveKey).toHaveBeenCalledTimes(1);
    expectAnonymous(await publicGet(gateway, '/v1/pets', ip), 401, 'unauthorized', ANON - 2);
  });

  it('when a valid key not yet cached comes from an IP over its anonymous limit, then 429 saying why, without a lookup; once cached, it works from there too', async () => {
    const { key } = await createKey(gateway);
    const ip = freshIp();
    for (let i = 0; i < ANON; i++) await publicGet(gateway, '/v1/pets', ip);
    resolveKey.mockClear();

    const refused = await publicGet(gateway, '/v1/openapi.json', ip, key);
    expectAnonymous(refused, 429, 'rate_limited', 0);
    expect(refused.body.message).toMatch(/key this server has not seen recently is checked within that limit/);
    expect(resolveKey).not.toHaveBeenCalled();

    expect((await publicGet(gateway, '/v1/openapi.json', freshIp(), key)).status).toBe(200); // cached through another client
    const accepted = await publicGet(gateway, '/v1/openapi.json', ip, key);
    expect(accepted.status).toBe(200);
    expect(limitsOf(accepted)).toEqual({ limit: 60, remaining: 58, policy: FREE_POLICY });
  });

  it('when a key is known to be unknown, then it is an anonymous request answered from the cache: 401, charged, no lookup', async () => {
    const unknown = generateApiKey();
    expectAnonymous(await publicGet(gateway, '/v1/pets', freshIp(), unknown), 401, 'unauthorized', ANON - 1);
    resolveKey.mockClear();
    const res = await publicGet(gateway, '/v1/pets', freshIp(), unknown);
    expectAnonymous(res, 401, 'unauthorized', ANON - 1);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.body.message).toBe('The API key is invalid or has been revoked.');
    expect(resolveKey).not.toHaveBeenCalled();
  });

  it('when a valid key was invalidated by a plan change, then it is re-read without charging the anonymous budget, even from an IP over it', async () => {
    const { key } = await createKey(gateway);
    const ip = freshIp();
    await publicGet(gateway, '/v1/openapi.json', freshIp(), key);
    for (let i = 0; i < ANON; i++) await publicGet(gateway, '/v1/pets', ip);
    await gateway.accounts.setPlan('free', { perMinute: 61, perDay: 1_001 });
    resolveKey.mockClear();

    const res = await publicGet(gateway, '/v1/openapi.json', ip, key);
    expect(res.status).toBe(200);
    expect(limitsOf(res)).toMatchObject({ limit: 61, policy: '"minute";q=61;w=60, "day";q=1001;w=86400' });
    expect(resolveKey).toHaveBeenCalledTimes(1);
  });

  it('when a key is revoked, then its next request is looked up within the anonymous budget and refused as anonymous', async () => {
    const { key, keyId } = await createKey(gateway);
    const ip = freshIp();
    expect((await publicGet(gateway, '/v1/openapi.json', ip, key)).status).toBe(200);
    await gateway.accounts.revokeKey(keyId);
    expectAnonymous(await publicGet(gateway, '/v1/pets', ip, key), 401, 'unauthorized', ANON - 2);
  });

  it('when requests were answered, then /metrics on the admin port shows the key caches: hits, unknown-key hits, misses, entries', async () => {
    const { key } = await createKey(gateway);
    const unknown = generateApiKey();
    for (let i = 0; i < 3; i++) await publicGet(gateway, '/v1/openapi.json', freshIp(), key); // 1 miss, 2 hits
    for (let i = 0; i < 2; i++) await publicGet(gateway, '/v1/pets', freshIp(), unknown); // 1 miss, 1 unknown hit
    const res = await request(gateway.adminApp).get('/metrics').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('gateway_key_cache_lookups_total{result="hit"} 2');
    expect(res.text).toContain('gateway_key_cache_lookups_total{result="unknown_hit"} 1');
    expect(res.text).toContain('gateway_key_cache_lookups_total{result="miss"} 2');
    expect(res.text).toContain('gateway_key_cache_entries{cache="valid"} 1');
    expect(res.text).toContain('gateway_key_cache_entries{cache="unknown"} 1');
    expect(res.text).toContain('gateway_key_cache_evictions_total{cache="unknown"} 0');
  });
});

describe('a recently valid key that no longer resolves', () => {
  it('when its re-read finds it invalid, then the request is charged as anonymous after the lookup and answered 401 with the anonymous headers', async () => {
    const store = new MemoryAccountStore();
    const limiter = new MemoryLimiter({ threshold: null, seconds: 900 });
    const keys = new PrincipalResolver({ store });
    const service = new AccountService({ store, limiter });
    const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: 'x'.repeat(32), ANON_PER_MINUTE: String(ANON), TRUST_PROXY: 'loopback', PETS_URL: 'http://127.0.0.1:9' });
    const logger = createLogger('test', 'silent');
    const forwarder = new Forwarder({ replicas: new ReplicaSet(config.petsUrls), timeoutMs: 1_000 });
    const metrics = createMetrics({ isDegraded: () => false, defaultMetrics: false });
    const app = createApp({ config, logger, forwarder, keys, limiter, metrics, lifecycle: { draining: false } });
    const account = await service.createAccount({ name: 'A', plan: 'free' });
    const { key } = await service.createKey(account.id);
    const ip = freshIp();
    expect((await request(app).get('/v1/openapi.json').set('X-Forwarded-For', ip).set('Authorization', `Bearer ${key}`)).status).toBe(200);
    // A plan without numbers (only reachable by writing the store directly): the key can no longer be limited, so it is refused.
    await store.setPlan({ name: 'free', perMinute: null, perDay: null });

    const res = await request(app).get('/v1/pets').set('X-Forwarded-For', ip).set('Authorization', `Bearer ${key}`);
    expectAnonymous(res, 401, 'unauthorized', ANON - 2);
    keys.close();
  });
});

describe('the anonymous budget pays for key lookups (Redis)', () => {
  let redis: TestRedis;
  let gateway: Gateway;

  beforeAll(async () => {
    redis = await TestRedis.start();
    gateway = await startGateway({ ANON_PER_MINUTE: String(ANON), REDIS_URL: redis.url });
    // rate-limiter-flexible loads its script with the first call; the tests count what follows.
    await publicGet(gateway, '/v1/openapi.json', freshIp());
  });

  afterAll(async () => {
    await gateway.close();
    await redis.stop();
  });

  it('when an IP over its anonymous limit sends fresh well-formed keys, then the account store receives no Redis command: only the anonymous counter does', async () => {
    const ip = freshIp();
    for (let i = 0; i < ANON; i++) await publicGet(gateway, '/v1/pets', ip, generateApiKey());
    await redis.resetStats();
    const N = 20;
    for (let i = 0; i < N; i++) expectAnonymous(await publicGet(gateway, '/v1/pets', ip, generateApiKey()), 429, 'rate_limited', 0);

    const stats = await redis.commandStats();
    // The store's one lookup command is an EVAL whose script GETs the hash index; neither happened.
    expect(stats['eval']).toBeUndefined();
    expect(stats['get']).toBeUndefined();
    expect(stats['hgetall']).toBeUndefined();
    // What remains is the per-IP counter of rate-limiter-flexible: one script call per request.
    expect(stats['evalsha']).toBe(N);
  });

  it('when a fresh key is looked up within the budget, then that is exactly one EVAL (the one store round trip)', async () => {
    const ip = freshIp();
    await redis.resetStats();
    expectAnonymous(await publicGet(gateway, '/v1/pets', ip, generateApiKey()), 401, 'unauthorized', ANON - 1);
    const stats = await redis.commandStats();
    expect(stats['eval']).toBe(1);
    expect(stats['evalsha']).toBe(1); // the anonymous charge before it
  });
});
