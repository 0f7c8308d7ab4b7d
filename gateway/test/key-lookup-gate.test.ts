import { MemoryAuditLog } from '../src/audit/audit-log';
import request from 'supertest';
import { createLogger } from '../../shared/src/logger';
import { LookupGate } from '../src/accounts/lookup-gate';
import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { PrincipalResolver } from '../src/accounts/principal-resolver';
import { AccountService } from '../src/accounts/account-service';
import { createApp } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import type { Gateway } from '../src/gateway';
import { generateApiKey } from '../src/keys/api-key';
import { MemoryLimiter } from '../src/limits/memory-limiter';
import { createMetrics } from '../src/metrics';
import { createPetsProxy } from '../src/upstream/pets-proxy';
import { ReplicaSet } from '../src/upstream/replicas';
import { ADMIN_TOKEN, createKey, limitsOf, publicGet, startGateway } from './support/gateway';
import { useRedis } from './support/redis';

/**
 * A key the caches do not know is looked up when the look-up gate lets it: at once within its
 * client's look-up budget, else in the replica's queue. Nothing about it is anonymous: a valid key
 * counts against its account only, an invalid one against its client's anonymous budget, after
 * the look-up. So a valid key is never refused because of what other requests from its address did.
 */
const ANON = 3;
const LOOKUPS = 5;
const QUEUE_PER_SECOND = 50;
const ENV = { ANON_PER_MINUTE: String(ANON), KEY_LOOKUPS_PER_MINUTE: String(LOOKUPS), KEY_LOOKUP_QUEUE_PER_SECOND: String(QUEUE_PER_SECOND) };
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

async function metricsText(gateway: Gateway): Promise<string> {
  const res = await request(gateway.adminApp).get('/metrics').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(res.status).toBe(200);
  return res.text;
}

describe('key look-ups through the look-up gate (in process)', () => {
  let gateway: Gateway;
  let resolveKey: jest.SpyInstance;

  beforeEach(async () => {
    gateway = await startGateway(ENV);
    // The real store, watched: every call still goes through to it.
    resolveKey = jest.spyOn(MemoryAccountStore.prototype, 'resolveKey');
  });

  afterEach(async () => {
    resolveKey.mockRestore();
    await gateway.close();
  });

  it('when an address has used up its anonymous limit with bad keys, then a valid key this replica has never seen still gets 200 with its account headers', async () => {
    const { key } = await createKey(gateway);
    const ip = freshIp();
    for (let i = 0; i < 20; i++) await publicGet(gateway, '/v1/pets', ip, generateApiKey());
    expectAnonymous(await publicGet(gateway, '/v1/pets', ip, generateApiKey()), 429, 'rate_limited', 0);

    const res = await publicGet(gateway, '/v1/openapi.json', ip, key);
    expect(res.status).toBe(200);
    expect(limitsOf(res)).toEqual({ limit: 60, remaining: 59, policy: FREE_POLICY });
  });

  it('when an address sends fresh keys past its look-up budget, then they wait their turn in the queue and are looked up, never refused for it; unknown ones are refused as anonymous', async () => {
    const ip = freshIp();
    const replies = [];
    for (let i = 0; i < LOOKUPS + 4; i++) replies.push(await publicGet(gateway, '/v1/pets', ip, generateApiKey()));
    expect(replies.map((r) => r.status)).toEqual([401, 401, 401, 429, 429, 429, 429, 429, 429]);
    replies.forEach((reply, i) => expectAnonymous(reply, i < ANON ? 401 : 429, i < ANON ? 'unauthorized' : 'rate_limited', Math.max(0, ANON - 1 - i)));
    expect(resolveKey).toHaveBeenCalledTimes(LOOKUPS + 4);
    const metrics = await metricsText(gateway);
    expect(metrics).toContain(`gateway_key_lookup_admissions_total{admission="immediate"} ${LOOKUPS}`);
    expect(metrics).toContain('gateway_key_lookup_admissions_total{admission="queued"} 4');
    expect(metrics).toContain('gateway_key_lookups_waiting 0');
  });

  it('when many fresh keys arrive at once past the budget, then the store is asked at the queue rate, and a valid key among them is answered 200', async () => {
    const { key } = await createKey(gateway);
    const ip = freshIp();
    const started = Date.now();
    const flood = Promise.all(Array.from({ length: 60 }, () => publicGet(gateway, '/v1/pets', ip, generateApiKey())));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const valid = await publicGet(gateway, '/v1/openapi.json', ip, key);
    expect(valid.status).toBe(200);
    const floodReplies = await flood;
    const seconds = (Date.now() - started) / 1_000;
    expect(new Set(floodReplies.map((r) => r.status))).toEqual(new Set([401, 429]));
    // The budget and the queue's first second at once, then the queue's rate: 61 look-ups take about (61 - 5 - 50) / 50 s.
    expect(resolveKey).toHaveBeenCalledTimes(61);
    expect(seconds).toBeGreaterThanOrEqual(0.08);
  });

  it('when a valid key is not cached, then it costs its client nothing anonymous and no look-up budget', async () => {
    const { key } = await createKey(gateway);
    const ip = freshIp();
    const first = await publicGet(gateway, '/v1/openapi.json', ip, key);
    expect(first.status).toBe(200);
    expect(limitsOf(first)).toEqual({ limit: 60, remaining: 59, policy: FREE_POLICY });
    for (let i = 0; i < 5; i++) expect(limitsOf(await publicGet(gateway, '/v1/openapi.json', ip, key)).remaining).toBe(58 - i);
    expect(resolveKey).toHaveBeenCalledTimes(1);
    expectAnonymous(await publicGet(gateway, '/v1/pets', ip), 401, 'unauthorized', ANON - 1);
    expect(await metricsText(gateway)).toContain('gateway_key_lookup_admissions_total{admission="immediate"} 1');
  });

  it('when a client starts with many concurrent requests on a new valid key, then they share one lookup', async () => {
    const { key } = await createKey(gateway, 'pro');
    const ip = freshIp();
    const replies = await Promise.all(Array.from({ length: 20 }, () => publicGet(gateway, '/v1/openapi.json', ip, key)));
    expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(replies.map((r) => limitsOf(r).remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 280 + i));
    expect(resolveKey).toHaveBeenCalledTimes(1);
    expectAnonymous(await publicGet(gateway, '/v1/pets', ip), 401, 'unauthorized', ANON - 1);
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

  it('when a valid key was refreshed by a plan change, then it is re-read outside the gate, even from an address over both budgets', async () => {
    const { key } = await createKey(gateway);
    const ip = freshIp();
    await publicGet(gateway, '/v1/openapi.json', freshIp(), key);
    for (let i = 0; i < LOOKUPS; i++) await publicGet(gateway, '/v1/pets', ip, generateApiKey());
    await gateway.accounts.setPlan('free', { perMinute: 61, perDay: 1_001 });
    resolveKey.mockClear();

    const res = await publicGet(gateway, '/v1/openapi.json', ip, key);
    expect(res.status).toBe(200);
    expect(limitsOf(res)).toMatchObject({ limit: 61, policy: '"minute";q=61;w=60, "day";q=1001;w=86400' });
    expect(resolveKey).toHaveBeenCalledTimes(1);
    // The key's first look-up and the minted keys went through the gate; the re-read did not.
    expect(await metricsText(gateway)).toContain(`gateway_key_lookup_admissions_total{admission="immediate"} ${LOOKUPS + 1}`);
  });

  it('when a key is revoked, then its next request is looked up and refused as anonymous', async () => {
    const { key, keyId } = await createKey(gateway);
    const ip = freshIp();
    expect((await publicGet(gateway, '/v1/openapi.json', ip, key)).status).toBe(200);
    await gateway.accounts.revokeKey(keyId);
    expectAnonymous(await publicGet(gateway, '/v1/pets', ip, key), 401, 'unauthorized', ANON - 1);
  });

  it('when requests were answered, then /metrics on the admin port shows the key caches: hits, unknown-key hits, misses, entries', async () => {
    const { key } = await createKey(gateway);
    const unknown = generateApiKey();
    for (let i = 0; i < 3; i++) await publicGet(gateway, '/v1/openapi.json', freshIp(), key); // 1 miss, 2 hits
    for (let i = 0; i < 2; i++) await publicGet(gateway, '/v1/pets', freshIp(), unknown); // 1 miss, 1 unknown hit
    const text = await metricsText(gateway);
    expect(text).toContain('gateway_key_cache_lookups_total{result="hit"} 2');
    expect(text).toContain('gateway_key_cache_lookups_total{result="unknown_hit"} 1');
    expect(text).toContain('gateway_key_cache_lookups_total{result="miss"} 2');
    expect(text).toContain('gateway_key_cache_entries{cache="valid"} 1');
    expect(text).toContain('gateway_key_cache_entries{cache="unknown"} 1');
    expect(text).toContain('gateway_key_cache_evictions_total{cache="unknown"} 0');
  });
});

describe('a recently valid key that no longer resolves', () => {
  it('when its re-read finds it invalid, then the request is charged as anonymous after the lookup and answered 401 with the anonymous headers', async () => {
    const store = new MemoryAccountStore();
    const limiter = new MemoryLimiter({ threshold: null, seconds: 900 });
    const keys = new PrincipalResolver({ store });
    const lookups = new LookupGate({ perClientPerMinute: LOOKUPS, queuedPerSecond: QUEUE_PER_SECOND });
    const service = new AccountService({ store, limiter, audit: new MemoryAuditLog() });
    const config = loadGatewayConfig({ INTERNAL_JWT_SECRET: 'x'.repeat(32), ANON_PER_MINUTE: String(ANON), TRUST_PROXY: 'loopback', PETS_URL: 'http://127.0.0.1:9' });
    const logger = createLogger('test', 'silent');
    const petsProxy = createPetsProxy({ replicas: new ReplicaSet(config.petsUrls), timeoutMs: 1_000 });
    const metrics = createMetrics({ isDegraded: () => false, defaultMetrics: false });
    const app = createApp({ config, logger, petsProxy, keys, lookups, limiter, metrics, lifecycle: { draining: false } });
    const account = await service.createAccount({ name: 'A', plan: 'free' });
    const { key } = await service.createKey(account.id);
    const ip = freshIp();
    expect((await request(app).get('/v1/openapi.json').set('X-Forwarded-For', ip).set('Authorization', `Bearer ${key}`)).status).toBe(200);
    // A plan without numbers (only reachable by writing the store directly): the key can no longer be limited, so it is refused.
    await store.setPlan({ name: 'free', perMinute: null, perDay: null });

    const res = await request(app).get('/v1/pets').set('X-Forwarded-For', ip).set('Authorization', `Bearer ${key}`);
    expectAnonymous(res, 401, 'unauthorized', ANON - 1);
    keys.close();
    lookups.close();
  });
});

describe('key look-ups through the look-up gate (Redis)', () => {
  const redis = useRedis();
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = redis.closeAfter(await startGateway({ ...ENV, REDIS_URL: redis.url }));
    // rate-limiter-flexible loads its script with the first call; the tests count what follows.
    await publicGet(gateway, '/v1/openapi.json', freshIp());
  });

  it('when an address over its anonymous limit sends fresh well-formed keys, then each costs one look-up (EVAL) and nothing more: the anonymous refusal is answered locally', async () => {
    const ip = freshIp();
    for (let i = 0; i < ANON; i++) await publicGet(gateway, '/v1/pets', ip, generateApiKey());
    await redis.server.resetStats();
    const N = 20;
    for (let i = 0; i < N; i++) expectAnonymous(await publicGet(gateway, '/v1/pets', ip, generateApiKey()), 429, 'rate_limited', 0);

    const stats = await redis.server.commandStats();
    // The store's one lookup command is an EVAL whose script GETs the hash index.
    expect(stats['eval']).toBe(N);
    expect(stats['get']).toBe(N);
    // The per-IP counter knew the address was over its limit: no EVALSHA at all.
    expect(stats['evalsha']).toBeUndefined();
  });

  it('when a fresh key is looked up, then that is exactly one EVAL (the one store round trip), then one anonymous charge', async () => {
    const ip = freshIp();
    await redis.server.resetStats();
    expectAnonymous(await publicGet(gateway, '/v1/pets', ip, generateApiKey()), 401, 'unauthorized', ANON - 1);
    const stats = await redis.server.commandStats();
    expect(stats['eval']).toBe(1);
    expect(stats['evalsha']).toBe(1);
  });
});
