import { MemoryAuditLog } from '../src/audit/audit-log';
import { AccountService } from '../src/accounts/account-service';
import { PrincipalResolver } from '../src/accounts/principal-resolver';
import { RedisAccountStore } from '../src/accounts/redis-account-store';
import type { Principal } from '../src/accounts/types';
import { generateApiKey } from '../src/keys/api-key';
import { waitFor } from '../../test/helpers/ports';
import { limiter, withKey } from './support/principal-resolver';
import { useRedis } from './support/redis';
import { resolveKey } from './support/resolve-key';

describe('PrincipalResolver across two Redis-backed replicas', () => {
  const redis = useRedis();
  let storeA: RedisAccountStore;
  let storeB: RedisAccountStore;
  let resolverA: PrincipalResolver;
  let resolverB: PrincipalResolver;
  let service: AccountService;
  let heardA: number;
  let heardB: number;

  beforeEach(async () => {
    await redis.server.flushAll();
    storeA = await RedisAccountStore.connect(redis.url);
    storeB = await RedisAccountStore.connect(redis.url);
    await Promise.all([storeA.whenSubscribed(), storeB.whenSubscribed()]);
    resolverA = new PrincipalResolver({ store: storeA });
    resolverB = new PrincipalResolver({ store: storeB });
    service = new AccountService({ store: storeA, limiter: limiter(), audit: new MemoryAuditLog() });
    heardA = heardB = 0;
    storeA.onChange(() => heardA++);
    storeB.onChange(() => heardB++);
  });

  /**
   * An account and a key, once both replicas have heard of their creation: otherwise those
   * events, still on their way, would empty a cache the test has just filled.
   */
  async function replicatedKey(plan: 'free' | 'pro' = 'free') {
    const created = await withKey(service, plan);
    await waitFor(() => heardA >= 2 && heardB >= 2, 1_000, 'the creation events');
    return created;
  }

  afterEach(async () => {
    resolverA.close();
    resolverB.close();
    await storeA.close();
    await storeB.close();
  });

  /** Polls both replicas until `done` holds for both; returns how long it took. */
  async function timeUntil(done: (a: Principal | null) => boolean, key: string): Promise<number> {
    const started = Date.now();
    await waitFor(async () => done(await resolveKey(resolverA, key)) && done(await resolveKey(resolverB, key)), 2_000, 'both replicas');
    return Date.now() - started;
  }

  it('when a key is revoked through one replica, then both refuse it within 1 s', async () => {
    const { key } = await replicatedKey();
    expect(await resolveKey(resolverA, key.key)).not.toBeNull();
    expect(await resolveKey(resolverB, key.key)).not.toBeNull();
    await service.revokeKey(key.id);
    expect(await timeUntil((principal) => principal === null, key.key)).toBeLessThan(1_000);
  });

  it('when a plan changes through one replica, then both apply the new quotas within 1 s', async () => {
    const { key } = await replicatedKey('pro');
    expect((await resolveKey(resolverA, key.key))?.quotas).toEqual({ perMinute: 300, perDay: 10_000 });
    expect((await resolveKey(resolverB, key.key))?.quotas).toEqual({ perMinute: 300, perDay: 10_000 });
    await service.setPlan('pro', { perMinute: 450, perDay: 12_000 });
    const took = await timeUntil((principal) => principal?.quotas.perMinute === 450 && principal.quotas.perDay === 12_000, key.key);
    expect(took).toBeLessThan(1_000);
  });

  it('when an account override changes through one replica, then both apply it within 1 s', async () => {
    const { account, key } = await replicatedKey('free');
    await resolveKey(resolverA, key.key);
    await resolveKey(resolverB, key.key);
    await service.updateAccount(account.id, { perMinute: 7 });
    expect(await timeUntil((principal) => principal?.quotas.perMinute === 7, key.key)).toBeLessThan(1_000);
  });

  it('when a key is malformed, then Redis receives no command at all', async () => {
    const { key } = await replicatedKey();
    await redis.server.resetStats();
    for (const candidate of ['nope', 'ask_live_', `${key.key.slice(0, -1)}${key.key.endsWith('0') ? '1' : '0'}`]) {
      expect(await resolveKey(resolverA, candidate)).toBeNull();
    }
    expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({});
  });

  it('when a key is cached, then resolving it again sends Redis no command', async () => {
    const { key } = await replicatedKey();
    await resolveKey(resolverA, key.key);
    await redis.server.resetStats();
    expect(await resolveKey(resolverA, key.key)).not.toBeNull();
    expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({});
  });

  it('when an uncached key is resolved, then Redis receives exactly one command', async () => {
    const { key } = await replicatedKey();
    // Commands a script runs show up in commandstats too: one EVAL is the one round trip; inside it,
    // GET of the hash index, HGETALL of the key and of its account, HGET of the plan's numbers.
    await redis.server.resetStats();
    expect(await resolveKey(resolverA, key.key)).not.toBeNull();
    expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({ eval: 1, get: 1, hgetall: 2, hget: 1 });
    await redis.server.resetStats();
    expect(await resolveKey(resolverA, generateApiKey())).toBeNull();
    expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({ eval: 1, get: 1 });
  });

  it('when a flood of distinct unknown keys passes, then a known key is still cached: no Redis command for it', async () => {
    const { key } = await replicatedKey();
    const small = new PrincipalResolver({ store: storeA, maxEntries: 100, maxUnknownEntries: 50 });
    try {
      await resolveKey(small, key.key);
      for (let i = 0; i < 500; i++) expect(await resolveKey(small, generateApiKey())).toBeNull();
      await redis.server.resetStats();
      expect(await resolveKey(small, key.key)).not.toBeNull();
      expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({});
    } finally {
      small.close();
    }
  });

  it('when Redis goes away, then a replica keeps serving cached keys; when it returns (empty), the reset makes the replica re-read', async () => {
    const { key } = await replicatedKey();
    const resets = { a: 0, b: 0 };
    storeA.onChange((event) => void (event.type === 'reset' && resets.a++));
    storeB.onChange((event) => void (event.type === 'reset' && resets.b++));
    await resolveKey(resolverB, key.key);
    await redis.server.stop();
    expect(await resolveKey(resolverB, key.key)).not.toBeNull();
    await redis.server.start(); // no persistence: the key is gone, which only a re-read can notice
    await waitFor(async () => (await resolveKey(resolverB, key.key)) === null, 5_000, 'replica B to re-read after the reconnect');
    // Both feeds subscribed again before the stores close: ioredis's own resubscription, still on
    // its way, would otherwise be cut by the close and reject unhandled ("Connection is closed.").
    await waitFor(() => resets.a > 0 && resets.b > 0, 5_000, 'both change feeds to resubscribe');
  });
});

/** The stats include the stats calls themselves. */
function commandsBesidesStats(stats: Record<string, number>): Record<string, number> {
  const rest = { ...stats };
  for (const name of Object.keys(rest)) if (name === 'info' || name.startsWith('config')) delete rest[name];
  return rest;
}
