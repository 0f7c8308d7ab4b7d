import { PortalVisitor } from '../../gateway/test/support/portal-visitor';
import { sleep, waitFor } from '../helpers/ports';
import { expectChangedWithin } from '../helpers/propagation';
import type { TestRedisCluster } from '../helpers/redis-cluster';
import type { TestRedis } from '../helpers/redis-server';
import { TEST_ADMIN_TOKEN, admin, createAccountWithKey, startSystem, type GatewayHandle, type SystemHandle } from '../helpers/system';
import { call, expectError, hasRateLimitHeaders, metricValue, rateLimitOf, statusCounts, type Reply } from '../helpers/traffic';

/**
 * Two gateway processes on a real three-master Redis Cluster (REDIS_CLUSTER_NODES): the same
 * guarantees as on one Redis, and a dead master costing only its own accounts their exactness.
 * One cluster for the file; the test that kills a master runs last.
 */
let system: SystemHandle;
let cluster: TestRedisCluster;
let a: GatewayHandle;
let b: GatewayHandle;

beforeAll(async () => {
  system = await startSystem({ redisCluster: true, replicas: 2, redisDeadline: 'product', gatewayEnv: { BAN_THRESHOLD: '3', BAN_SECONDS: '60' } });
  cluster = system.cluster!;
  [a, b] = system.gateways as [GatewayHandle, GatewayHandle];
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

type Account = Awaited<ReturnType<typeof createAccountWithKey>>;

const getPets = (url: string, key: string) => call(`${url}/v1/pets`, { key });

const ownerOf = (accountId: string) => cluster.nodeForKey(`rl:{${accountId}}:minute`);

async function minuteCount(accountId: string): Promise<number> {
  return Number((await (await ownerOf(accountId)).client.get(`rl:{${accountId}}:minute`)) ?? 0);
}

/** Accounts made through the ops API until every master holds the limiter keys of `perMaster` of them. */
async function accountsOnEveryMaster(perMaster: number, perMinute: number): Promise<Map<TestRedis, Account[]>> {
  const byMaster = new Map<TestRedis, Account[]>(cluster.nodes.map((node) => [node, []]));
  while ([...byMaster.values()].some((list) => list.length < perMaster)) {
    const account = await createAccountWithKey(a.adminUrl, { plan: 'free', perMinute });
    const list = byMaster.get(await ownerOf(account.accountId))!;
    if (list.length < perMaster) list.push(account);
  }
  return byMaster;
}

/**
 * Fails unless `check` holds on both replicas for every poll sent 1 s or more after `since` (when
 * the change was acknowledged): judged by when each poll was sent, not by how long the loop took
 * (`expectChangedWithin`), so a loaded machine's slow requests do not count against the replicas.
 */
async function expectOnBothWithin1s(since: number, check: (gateway: GatewayHandle) => Promise<boolean>, what: string): Promise<void> {
  await expectChangedWithin(since, 1_000, async () => (await Promise.all([check(a), check(b)])).every(Boolean), what);
}

describe('gateway replicas on a Redis Cluster', () => {
  it('when the gateways run on the cluster, then readiness and metrics say so', async () => {
    for (const gateway of [a, b]) {
      expect((await call(`${gateway.url}/readyz`)).json).toEqual({ status: 'ready', rateLimiter: 'redis-cluster' });
      const metrics = await (await fetch(`${gateway.adminUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
      expect(metrics).toContain('gateway_store_info{store="redis-cluster"} 1');
      expect(await metricValue(gateway.adminUrl, 'gateway_rate_limiter_unavailable_parts')).toBe(0);
    }
  });

  it('when a key is revoked and a plan changed through one replica, then both replicas apply it within 1 s', async () => {
    const revoked = await createAccountWithKey(a.adminUrl);
    const planned = await createAccountWithKey(b.adminUrl, { plan: 'pro' });
    for (const gateway of [a, b]) {
      expect((await getPets(gateway.url, revoked.key)).status).toBe(200);
      expect((await getPets(gateway.url, planned.key)).headers['ratelimit-policy']).toContain('"minute";q=300');
    }
    expect((await admin(b.adminUrl, 'DELETE', `/admin/keys/${revoked.keyId}`)).status).toBe(204);
    await expectOnBothWithin1s(Date.now(), async (g) => (await getPets(g.url, revoked.key)).status === 401, 'the revoked key refused (401)');

    expect((await admin(a.adminUrl, 'PUT', '/admin/plans/pro', { perMinute: 450, perDay: 12_000 })).status).toBe(200);
    await expectOnBothWithin1s(Date.now(), async (g) => (await getPets(g.url, planned.key)).headers['ratelimit-policy'] === '"minute";q=450;w=60, "day";q=12000;w=86400', "the plan's new limits applied");
  });

  it('when a key is banned through one replica, then the other refuses it too, and a lifted ban frees it on both within 1 s', async () => {
    const account = await createAccountWithKey(a.adminUrl, { plan: 'free', perMinute: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await getPets(a.url, account.key)).status);
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    for (const gateway of [a, b]) expectError(await getPets(gateway.url, account.key), 429, 'temporarily_banned');

    expect((await admin(b.adminUrl, 'DELETE', `/admin/keys/${account.keyId}/ban`)).status).toBe(204);
    // The minute window is still full: lifted means rate_limited again, no longer banned.
    await expectOnBothWithin1s(Date.now(), async (g) => (await getPets(g.url, account.key)).json?.['code'] === 'rate_limited', 'the lifted ban (rate_limited, no longer banned)');
  });

  it("when the account store's master dies right after a burst of sign-ups, then keys both replicas verified before keep working, with headers and no 5xx", async () => {
    const storeOwner = await cluster.nodeForKey('{gw}:plans');
    const known = [await createAccountWithKey(a.adminUrl, { plan: 'pro' }), await createAccountWithKey(b.adminUrl, { plan: 'business' })];
    for (const account of known) for (const gateway of [a, b]) expect((await getPets(gateway.url, account.key)).status).toBe(200);
    await storeOwner.aofWritten(); // the known accounts survive the kill, for the test after this one

    // Sign-ups on both replicas (ops API and portal), fresh enterprise accounts among them; their
    // change events reach every replica over the cluster bus, and then the store's master dies.
    const portal = new PortalVisitor(a.url, `127.0.0.1:${a.port}`);
    const signUps = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => admin((i % 2 ? a : b).adminUrl, 'POST', '/admin/accounts', { name: `burst ${i}`, plan: 'enterprise', perMinute: 50, perDay: 500 })),
      portal.signUp(`burst.${Date.now()}@example.com`).then((response) => ({ status: response.status === 303 ? 201 : response.status })),
    ]);
    expect(signUps.map((reply) => reply.status)).toEqual(signUps.map(() => 201));
    await sleep(300);
    await storeOwner.stop();
    try {
      const replies: Reply[] = [];
      let withoutHeaders = 0;
      for (let round = 0; round < 4; round++) {
        for (const account of known) {
          for (const gateway of [a, b]) {
            const reply = await getPets(gateway.url, account.key);
            replies.push(reply);
            if (!hasRateLimitHeaders(reply)) withoutHeaders++; // checked on arrival: Reset is read against now
          }
        }
        await sleep(150);
      }
      expect({ statuses: statusCounts(replies), codes: replies.filter((r) => r.status !== 200).map((r) => r.json?.['code']), withoutHeaders }).toEqual({
        statuses: { 200: replies.length },
        codes: [],
        withoutHeaders: 0,
      });
      // No request waits on the dead master beyond the request path's deadlines (250 ms for the
      // limiter, 500 ms for a key look-up). It was "the slowest under 1 s", which a loaded machine
      // (CI beside another suite) broke with healthy answers: now, as in rate-limit-redis-outage,
      // the median under 1 s (every request waiting on the node, up to ioredis's own 1 s command
      // timeout and its reconnections, would exceed it) and the slowest under 3 s.
      const ms = replies.map((r) => r.ms).sort((x, y) => x - y);
      expect({ slowest: ms[ms.length - 1]! < 3_000, median: ms[Math.floor(ms.length / 2)]! < 1_000 }).toEqual({ slowest: true, median: true });
    } finally {
      await storeOwner.start();
      await cluster.waitUntilOk();
      await waitFor(async () => (await Promise.all([a, b].map(async (g) => (await call(`${g.url}/readyz`)).json?.['status']))).every((status) => status === 'ready'), 10_000, 'both replicas back on the cluster');
    }
  }, 60_000);

  // Last: it kills a master and brings it back.
  it('when a master dies, then its accounts are limited in-process with headers and no wait, the others stay exact, and exactness returns with the master', async () => {
    const storeOwner = await cluster.nodeForKey('{gw}:plans');
    const victim = cluster.nodes.find((node) => node !== storeOwner)!;
    const byMaster = await accountsOnEveryMaster(2, 5);
    const onVictim = byMaster.get(victim)!;
    const elsewhere = cluster.nodes.filter((node) => node !== victim).flatMap((node) => byMaster.get(node)!);
    // One request each through both replicas first, so each replica has resolved the keys.
    for (const account of [...onVictim, ...elsewhere]) {
      expect((await getPets(a.url, account.key)).status).toBe(200);
      expect((await getPets(b.url, account.key)).status).toBe(200);
    }

    await victim.aofWritten(); // its counts must survive the kill (checked after it returns)
    await victim.stop();
    const slow: Reply[] = [];
    const track = async (url: string, key: string) => {
      const reply = await getPets(url, key);
      rateLimitOf(reply);
      if (reply.ms > 1_000 || reply.status >= 500) slow.push(reply);
      return reply;
    };
    // Accounts on the dead master: each replica limits them in-process, 5/min, from zero.
    for (const account of onVictim) {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await track(a.url, account.key)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    }
    // Accounts elsewhere: exact on Redis across both replicas (2 already counted: 3 more, then refused).
    for (const account of elsewhere) {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await track(i % 2 ? a.url : b.url, account.key)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(await minuteCount(account.accountId)).toBe(5);
    }
    expect(slow).toEqual([]);
    const ready = await call(`${a.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'degraded', rateLimiter: 'redis-cluster (in-process for the accounts of 1 unreachable master)' });
    expect(await metricValue(a.adminUrl, 'gateway_rate_limiter_degraded')).toBe(1);
    expect(await metricValue(a.adminUrl, 'gateway_rate_limiter_unavailable_parts')).toBe(1);

    await victim.start();
    await cluster.waitUntilOk();
    await waitFor(async () => (await call(`${a.url}/readyz`)).json?.['status'] === 'ready', 10_000, 'replica a back on the master');
    // Exact on Redis again: the master kept its 2 counts (AOF); 3 more are accepted, then refused.
    const returning = onVictim[0]!;
    expect(await minuteCount(returning.accountId)).toBe(2);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await track(a.url, returning.key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await minuteCount(returning.accountId)).toBe(5);
  }, 60_000);
});
