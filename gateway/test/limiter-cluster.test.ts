import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Cluster } from 'ioredis';
import { TestRedisCluster } from '../../test/helpers/redis-cluster';
import type { TestRedis } from '../../test/helpers/redis-server';
import { sleep, waitFor } from '../../test/helpers/ports';
import { connectCluster, endConnection } from '../src/redis';
import { CLUSTER_READY_WAIT_MS } from './support/redis';
import { RedisLimiter, withFallback, type BanPolicy, type KeySubject, type Limiter, type LimitDecision } from '../src/limits';
import { utcDay } from '../src/limits/windows';

/**
 * The limiter on a real three-master Redis Cluster: accounts spread over the masters by their hash
 * tag, exact across replicas, one EVALSHA per accepted request, and a dead master sending only its
 * own accounts in-process. One cluster for the whole file (creating one takes seconds); the test
 * that kills a master runs last.
 */
const logger = pino({ level: 'silent' });
const BAN: BanPolicy = { threshold: 3, seconds: 30 };
let cluster: TestRedisCluster;
const clients: Cluster[] = [];
const limiters: Limiter[] = [];

beforeAll(async () => {
  cluster = await TestRedisCluster.start();
}, 30_000);

afterAll(async () => {
  for (const limiter of limiters) await limiter.close();
  for (const client of clients) await endConnection(client, { graceful: false });
  await cluster?.stop();
});

/** A limiter on a cluster connection of its own, as another gateway replica would have. */
async function replica(ban: BanPolicy = BAN): Promise<Limiter> {
  const redis = await connectCluster(cluster.addresses, CLUSTER_READY_WAIT_MS);
  clients.push(redis);
  // These tests count; the 250 ms command timeout (tested where Redis fails) would let a starved
  // machine fall back to in-process counting and count twice as many.
  const limiter = withFallback(new RedisLimiter({ redis, ban, commandTimeoutMs: 2_000 }), { logger, ban });
  limiters.push(limiter);
  return limiter;
}

const minuteKey = (accountId: string) => `rl:{${accountId}}:minute`;

/** `perMaster` fresh account ids on each master, by asking the cluster which master serves each. */
async function accountsOnEveryMaster(perMaster: number): Promise<Map<TestRedis, string[]>> {
  const byMaster = new Map<TestRedis, string[]>(cluster.nodes.map((node) => [node, []]));
  while ([...byMaster.values()].some((ids) => ids.length < perMaster)) {
    const id = `acct_${randomUUID().replace(/-/g, '')}`;
    const ids = byMaster.get(await cluster.nodeForKey(minuteKey(id)))!;
    if (ids.length < perMaster) ids.push(id);
  }
  return byMaster;
}

async function counterOn(accountId: string, name: string): Promise<number> {
  const node = await cluster.nodeForKey(minuteKey(accountId));
  return Number((await node.client.get(`rl:{${accountId}}:${name}`)) ?? 0);
}

const subjectOf = (accountId: string, perMinute: number, keyId = 'k'): KeySubject => ({ accountId, keyId, quotas: { perMinute, perDay: 100_000 } });

/** Inner commands of the script, and what this file's inspection sends, are not what the client sent. */
const INSPECTION = new Set(['info', 'config', 'config|resetstat', 'cluster|nodes', 'cluster|keyslot', 'cluster|info']);

async function clientStats(): Promise<Record<string, number>> {
  return Object.fromEntries(Object.entries(await cluster.commandStats()).filter(([name]) => !INSPECTION.has(name)));
}

describe('limiter on Redis Cluster', () => {
  it('when accounts on every master are hammered through two replicas at once, then each gets exactly its quota and Redis holds it', async () => {
    const [a, b] = [await replica(), await replica()];
    const byMaster = await accountsOnEveryMaster(4);
    const accounts = [...byMaster.values()].flat();
    expect(new Set(await Promise.all(accounts.map(async (id) => (await cluster.nodeForKey(minuteKey(id))).port)))).toEqual(new Set(cluster.nodes.map((n) => n.port)));

    const decisions = await Promise.all(
      accounts.flatMap((accountId) => Array.from({ length: 40 }, (_, i) => Promise.resolve((i % 2 === 0 ? a : b).consumeKey(subjectOf(accountId, 20))).then((d) => ({ accountId, d })))),
    );
    for (const accountId of accounts) {
      const mine = decisions.filter((x) => x.accountId === accountId).map((x) => x.d.outcome);
      expect({ accountId, allowed: mine.filter((o) => o === 'allowed').length }).toEqual({ accountId, allowed: 20 });
      expect(await counterOn(accountId, 'minute')).toBe(20);
      expect(await counterOn(accountId, `day:${utcDay(Date.now())}`)).toBe(20);
    }
    expect(a.mode).toBe('redis-cluster');
    expect(a.degraded).toBe(false);
  });

  it('when N requests are accepted on the cluster, then the masters together receive exactly N EVALSHA and nothing else from the client', async () => {
    const limiter = await replica({ threshold: 1000, seconds: 900 });
    const accounts = [...(await accountsOnEveryMaster(2)).values()].flat();
    // The first script call on each node connection goes out as EVAL to load it; the hot path is what follows.
    for (const [warm] of (await accountsOnEveryMaster(1)).values()) await limiter.consumeKey(subjectOf(warm!, 1000));
    await cluster.resetStats();
    const PER_ACCOUNT = 5;
    for (const accountId of accounts) for (let i = 0; i < PER_ACCOUNT; i++) expect((await limiter.consumeKey(subjectOf(accountId, 1000))).outcome).toBe('allowed');

    const N = accounts.length * PER_ACCOUNT;
    const stats = await clientStats();
    // Each account's first request creates its minute and day counters (SET), later ones INCR them.
    expect(stats).toEqual({ evalsha: N, time: N, get: 2 * N, pttl: 2 * N, set: 2 * accounts.length, incr: 2 * (N - accounts.length) });
  });

  it('when an account is known to be over its limit on the cluster, then further requests cost no Redis command', async () => {
    const limiter = await replica({ threshold: 1000, seconds: 900 });
    const accountId = (await accountsOnEveryMaster(1)).get(cluster.nodes[1]!)![0]!;
    for (let i = 0; i < 3; i++) await limiter.consumeKey(subjectOf(accountId, 3));
    await cluster.resetStats();
    for (let i = 0; i < 30; i++) expect((await limiter.consumeKey(subjectOf(accountId, 3))).outcome).toBe('limited');
    expect(await clientStats()).toEqual({});
  });

  it('when a key is banned on one replica, then the other refuses it as banned, and a lift with its account clears it everywhere', async () => {
    const [a, b] = [await replica(), await replica()];
    const subject = subjectOf(`acct_${randomUUID().replace(/-/g, '')}`, 2, `key_${randomUUID().slice(0, 8)}`);
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push((await a.consumeKey(subject)).outcome);
    expect(outcomes).toEqual(['allowed', 'allowed', 'limited', 'limited', 'banned']);
    expect((await b.consumeKey(subject)).outcome).toBe('banned');
    // The ban marker lives in the account's slot, beside its windows.
    const node = await cluster.nodeForKey(minuteKey(subject.accountId));
    expect(await node.client.exists(`rl:{${subject.accountId}}:key:${subject.keyId}:ban`)).toBe(1);

    await a.liftBan(subject);
    await b.liftBan(subject);
    expect((await b.consumeKey({ ...subject, quotas: { perMinute: 10, perDay: 1000 } })).outcome).toBe('allowed');
  });

  it('when history is asked on the cluster, then one MGET answers it from the account slot', async () => {
    const limiter = await replica();
    const accountId = `acct_${randomUUID().replace(/-/g, '')}`;
    for (let i = 0; i < 4; i++) await limiter.consumeKey(subjectOf(accountId, 100));
    const node = await cluster.nodeForKey(minuteKey(accountId));
    await node.client.set(`rl:{${accountId}}:day:${utcDay(Date.now()) - 2}`, '17');
    await cluster.resetStats();
    const history = await limiter.history(accountId, 3);
    expect(history.map((d) => d.accepted)).toEqual([17, 0, 4]);
    expect((await cluster.commandStats())['mget']).toBe(1);
  });

  it('when anonymous clients on many slots are limited through two replicas, then each IP gets exactly its limit', async () => {
    const [a, b] = [await replica(), await replica()];
    const ips = Array.from({ length: 12 }, (_, i) => `198.51.100.${i + 1}`);
    const owners = new Set(await Promise.all(ips.map(async (ip) => (await cluster.nodeForKey(`rl:anon:${ip}`)).port)));
    expect(owners.size).toBeGreaterThan(1);
    const results = await Promise.all(ips.flatMap((ip) => Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).consumeAnonymous(ip, 6).then((d) => ({ ip, d })))));
    for (const ip of ips) expect(results.filter((r) => r.ip === ip && r.d.outcome === 'allowed')).toHaveLength(6);
  });

  // Last: it kills a master (and brings it back).
  it('when one master dies, then only its accounts are limited in-process, quickly and with windows; when it returns, they are exact on Redis again', async () => {
    const modeChanges: boolean[] = [];
    const redis = await connectCluster(cluster.addresses, CLUSTER_READY_WAIT_MS);
    clients.push(redis);
    const incidents: Array<{ part?: string; msg: string }> = [];
    const recording = pino({ level: 'warn' }, { write: (line: string) => void incidents.push(JSON.parse(line) as { part?: string; msg: string }) });
    const ban = { threshold: 1000, seconds: 900 };
    const limiter = withFallback(new RedisLimiter({ redis, ban }), { logger: recording, ban, onModeChange: (degraded) => modeChanges.push(degraded) });
    limiters.push(limiter);
    const byMaster = await accountsOnEveryMaster(3);
    const [victim, ...survivors] = cluster.nodes as [TestRedis, TestRedis, TestRedis];
    const onVictim = byMaster.get(victim)!;
    const elsewhere = survivors.flatMap((node) => byMaster.get(node)!);
    for (const accountId of [...onVictim, ...elsewhere]) await limiter.consumeKey(subjectOf(accountId, 5));

    await victim.aofWritten(); // its counts must survive the kill (checked after it returns)
    await victim.stop();
    const timed = async (subject: KeySubject): Promise<{ d: LimitDecision; ms: number }> => {
      const started = performance.now();
      const d = await limiter.consumeKey(subject);
      return { d, ms: performance.now() - started };
    };
    // Each account on the dead master: 5/min holds in-process (1 already counted in Redis is not known here).
    const slowest: number[] = [];
    for (const accountId of onVictim) {
      const outcomes: string[] = [];
      for (let i = 0; i < 6; i++) {
        const { d, ms } = await timed(subjectOf(accountId, 5));
        outcomes.push(d.outcome);
        slowest.push(ms);
        expect(d.windows.map((w) => w.name)).toEqual(['minute', 'day']);
      }
      expect(outcomes).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'allowed', 'limited']);
    }
    expect(limiter.degraded).toBe(true);
    expect(limiter.mode).toBe('redis-cluster (in-process for the accounts of 1 unreachable master)');
    // Accounts on the other masters stay exact on Redis: 4 more accepted (5 in all), then refused, and Redis counted them.
    for (const accountId of elsewhere) {
      const outcomes: string[] = [];
      for (let i = 0; i < 5; i++) {
        const { d, ms } = await timed(subjectOf(accountId, 5));
        outcomes.push(d.outcome);
        slowest.push(ms);
      }
      expect(outcomes).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'limited']);
      expect(await counterOn(accountId, 'minute')).toBe(5);
    }
    // Nothing waited long, and only the dead master was ever marked down (once): after the first
    // failed call, its accounts were answered in-process without trying it again.
    expect(Math.max(...slowest)).toBeLessThan(1_000);
    expect(incidents.map((line) => line.part)).toEqual([`127.0.0.1:${victim.port}`]);

    await victim.start();
    await cluster.waitUntilOk();
    await waitFor(() => !limiter.degraded, 10_000, 'the limiter to return to the master');
    expect(limiter.mode).toBe('redis-cluster');
    expect(modeChanges).toEqual([true, false]);
    // Back on Redis: the master kept its data (AOF), so the account counted before the kill has 1 in Redis.
    const returning = onVictim[0]!;
    expect(await counterOn(returning, 'minute')).toBe(1);
    expect((await limiter.consumeKey(subjectOf(returning, 5))).outcome).toBe('allowed');
    expect(await counterOn(returning, 'minute')).toBe(2);
    await sleep(10);
  }, 40_000);
});
