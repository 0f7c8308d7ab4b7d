import { AccountService } from '../src/admin/account-service';
import { StoreUnavailableError } from '../src/store-errors';
import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { NOT_ADMITTED, PrincipalResolver } from '../src/accounts/principal-resolver';
import { RedisAccountStore } from '../src/accounts/redis-account-store';
import type { AccountStore, ApiKeyRecord } from '../src/accounts/types';
import { generateApiKey, hashApiKey } from '../src/keys/api-key';
import { MemoryLimiter } from '../src/limits/memory-limiter';
import { waitFor } from '../../test/helpers/ports';
import { useRedis } from './support/redis';

const limiter = () => new MemoryLimiter({ threshold: null, seconds: 900 });

/** A real store that counts the calls made to it (and can be made to fail), so tests can tell a cache hit from a lookup. */
function counted(store: AccountStore) {
  const calls: string[] = [];
  let failing = false;
  let gate: Promise<void> | undefined;
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || property === 'onChange' || property === 'close') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        calls.push(String(property));
        if (gate) await gate;
        if (failing) throw new StoreUnavailableError('store down (test)');
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    store: proxy,
    calls,
    fail: (on: boolean) => {
      failing = on;
    },
    /** Holds every store call until the returned function is called. */
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

async function withKey(service: AccountService, plan: 'free' | 'pro' | 'enterprise' = 'free', numbers: { perMinute?: number; perDay?: number } = {}) {
  const account = await service.createAccount({ name: 'Test', plan, ...numbers });
  const key = await service.createKey(account.id);
  return { account, key };
}

describe('PrincipalResolver with the in-process store', () => {
  let memory: MemoryAccountStore;
  let spy: ReturnType<typeof counted>;
  let service: AccountService;
  let now: number;
  let quotaChanges: (string | null)[];
  let resolver: PrincipalResolver;

  beforeEach(() => {
    memory = new MemoryAccountStore();
    spy = counted(memory);
    service = new AccountService({ store: memory, limiter: limiter() });
    now = 1_000_000;
    quotaChanges = [];
    resolver = new PrincipalResolver({ store: spy.store, now: () => now, onQuotaChange: (id) => quotaChanges.push(id) });
  });

  afterEach(() => resolver.close());

  it('when a valid key is resolved, then the principal carries the key, the account and the plan quotas', async () => {
    const { account, key } = await withKey(service, 'pro');
    expect(await resolver.resolve(key.key)).toEqual({ keyId: key.id, accountId: account.id, plan: 'pro', quotas: { perMinute: 300, perDay: 10_000 }, access: 'read-write', expiresAt: null, replacedBy: null });
  });

  it('when a key was resolved once, then the second resolve makes no store call', async () => {
    const { key } = await withKey(service);
    await resolver.resolve(key.key);
    const before = spy.calls.length;
    expect(await resolver.resolve(key.key)).not.toBeNull();
    expect(spy.calls.length).toBe(before);
  });

  it('when the key is malformed or mistyped, then null with no store call at all', async () => {
    const { key } = await withKey(service);
    const typo = key.key.slice(0, 15) + (key.key[15] === 'a' ? 'b' : 'a') + key.key.slice(16);
    for (const candidate of ['', 'Bearer', 'ask_live_short', typo, `${key.key}x`, key.key.toUpperCase()]) {
      expect(await resolver.resolve(candidate)).toBeNull();
    }
    expect(spy.calls).toEqual([]);
  });

  it('when a well-formed key is unknown, then null, remembered, and forgotten as soon as that key is added', async () => {
    const key = generateApiKey();
    expect(await resolver.resolve(key)).toBeNull();
    expect(await resolver.resolve(key)).toBeNull();
    expect(spy.calls).toEqual(['resolveKey']);
    const account = await service.createAccount({ name: 'Late', plan: 'free' });
    const record: ApiKeyRecord = { id: 'key_AAAAAAAAAAAAAAAAAAAA', accountId: account.id, hash: hashApiKey(key), createdAt: new Date().toISOString(), revokedAt: null };
    await memory.addKey(record);
    expect(await resolver.resolve(key)).toMatchObject({ keyId: record.id, accountId: account.id });
  });

  it('when a key is revoked, then it resolves to null at once', async () => {
    const { key } = await withKey(service);
    expect(await resolver.resolve(key.key)).not.toBeNull();
    await service.revokeKey(key.id);
    expect(await resolver.resolve(key.key)).toBeNull();
  });

  it('when a key has an access level and an expiry, then its principal carries both; once rolled, the cached principal is re-read with its new expiry and replacement', async () => {
    const account = await service.createAccount({ name: 'Test', plan: 'free' });
    const key = await service.createKey(account.id, 'test', { access: 'read-only', expiresAt: '2999-01-01T00:00:00Z' });
    expect(await resolver.resolve(key.key)).toMatchObject({ access: 'read-only', expiresAt: Date.parse('2999-01-01T00:00:00Z'), replacedBy: null });
    const rolled = await service.rollKey(key.id, { gracePeriodSeconds: 60 });
    const before = spy.calls.length;
    expect(await resolver.resolve(key.key)).toMatchObject({ access: 'read-only', expiresAt: Date.parse(rolled.replaces.expiresAt), replacedBy: rolled.id });
    expect(spy.calls.length).toBe(before + 1);
    expect(await resolver.resolve(rolled.key)).toMatchObject({ access: 'read-only', expiresAt: null, replacedBy: null });
  });

  it('when an account has overrides, then they win over the plan, one number at a time', async () => {
    const { account, key } = await withKey(service, 'pro');
    await service.updateAccount(account.id, { perDay: 123_456 });
    expect((await resolver.resolve(key.key))?.quotas).toEqual({ perMinute: 300, perDay: 123_456 });
    const enterprise = await withKey(service, 'enterprise', { perMinute: 5_000, perDay: 900_000 });
    expect((await resolver.resolve(enterprise.key.key))?.quotas).toEqual({ perMinute: 5_000, perDay: 900_000 });
  });

  it('when an account or a plan changes, then its keys are re-read and the limiter hook is told which account (or null)', async () => {
    const { account, key } = await withKey(service, 'pro');
    quotaChanges.length = 0;
    await resolver.resolve(key.key);
    await service.updateAccount(account.id, { perMinute: 42 });
    expect(quotaChanges).toEqual([account.id]);
    expect((await resolver.resolve(key.key))?.quotas.perMinute).toBe(42);
    await service.setPlan('pro', { perMinute: 1, perDay: 7 });
    expect(quotaChanges).toEqual([account.id, null]);
    expect((await resolver.resolve(key.key))?.quotas).toEqual({ perMinute: 42, perDay: 7 });
  });

  it('when a key changes, then the limiter hook is not told (quotas did not change)', async () => {
    const { key } = await withKey(service);
    quotaChanges.length = 0;
    await service.revokeKey(key.id);
    expect(quotaChanges).toEqual([]);
  });

  it('when an entry is older than the safety-net expiry, then the store is asked again', async () => {
    const { key } = await withKey(service);
    await resolver.resolve(key.key);
    const before = spy.calls.length;
    now += 29_999;
    await resolver.resolve(key.key);
    expect(spy.calls.length).toBe(before);
    now += 2;
    await resolver.resolve(key.key);
    expect(spy.calls.length).toBeGreaterThan(before);
  });

  it('when the store fails after an entry expired, then the expired answer is served; with nothing cached, the failure surfaces', async () => {
    const { key } = await withKey(service);
    const principal = await resolver.resolve(key.key);
    now += 31_000;
    spy.fail(true);
    expect(await resolver.resolve(key.key)).toEqual(principal);
    expect(resolver.stats.staleServed).toBe(1);
    const callsAfterFailure = spy.calls.length;
    now += 500;
    expect(await resolver.resolve(key.key)).toEqual(principal); // within the retry pause: no store call
    expect(spy.calls.length).toBe(callsAfterFailure);
    await expect(resolver.resolve(generateApiKey())).rejects.toBeInstanceOf(StoreUnavailableError);
    now += 300_000;
    await expect(resolver.resolve(key.key)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('when the change feed was interrupted (reset), then keys are re-read, yet served stale while the store still fails', async () => {
    const { key } = await withKey(service);
    const principal = await resolver.resolve(key.key);
    await memory.announce({ type: 'reset' });
    const before = spy.calls.length;
    expect(await resolver.resolve(key.key)).toEqual(principal);
    expect(spy.calls.length).toBeGreaterThan(before); // re-read, not served from the cache
    await memory.announce({ type: 'reset' });
    spy.fail(true);
    expect(await resolver.resolve(key.key)).toEqual(principal);
    expect(resolver.stats.staleServed).toBe(1);
  });

  it('when many requests with one new key arrive together, then they share one lookup', async () => {
    const { key } = await withKey(service);
    spy.calls.length = 0;
    const results = await Promise.all(Array.from({ length: 20 }, () => resolver.resolve(key.key)));
    expect(new Set(results.map((r) => r?.keyId))).toEqual(new Set([key.id]));
    expect(spy.calls).toEqual(['resolveKey']);
  });

  it('when a key is revoked while its lookup is under way, then the stale answer is not cached', async () => {
    const { key } = await withKey(service);
    const release = spy.hold();
    const pending = resolver.resolve(key.key);
    await memory.revokeKey(key.id, new Date().toISOString());
    release();
    await pending; // may still be the pre-revocation answer: it was read before the revocation
    expect(await resolver.resolve(key.key)).toBeNull();
  });

  it('when the store does not answer, then the lookup fails as unavailable after the lookup deadline', async () => {
    const slow = new PrincipalResolver({ store: spy.store, lookupTimeoutMs: 100 });
    const release = spy.hold();
    const started = Date.now();
    await expect(slow.resolve(generateApiKey())).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(500);
    release();
    slow.close();
  });

  it('when more unknown keys than maxUnknownEntries are seen, then the oldest unknown ones are evicted and no valid key is', async () => {
    const { key } = await withKey(service);
    const small = new PrincipalResolver({ store: spy.store, maxEntries: 2, maxUnknownEntries: 3 });
    await small.resolve(key.key);
    for (let i = 0; i < 10; i++) await small.resolve(generateApiKey());
    expect(small.stats).toMatchObject({ entries: { valid: 1, unknown: 3 }, evictions: { valid: 0, unknown: 7 } });
    small.close();
  });

  it('when a flood of distinct well-formed unknown keys passes, then a known key stays cached and costs no store call', async () => {
    const { key } = await withKey(service);
    const small = new PrincipalResolver({ store: spy.store, maxEntries: 100, maxUnknownEntries: 50 });
    await small.resolve(key.key);
    for (let i = 0; i < 1_000; i++) expect(await small.resolve(generateApiKey())).toBeNull();
    spy.calls.length = 0;
    expect(await small.resolve(key.key)).not.toBeNull();
    expect(spy.calls).toEqual([]);
    small.close();
  });

  it('when the cache of valid keys is full, then the least recently used key is evicted, not the one just used', async () => {
    const lru = new PrincipalResolver({ store: spy.store, maxEntries: 2 });
    const [a, b, c] = [await withKey(service), await withKey(service), await withKey(service)];
    await lru.resolve(a.key.key);
    await lru.resolve(b.key.key);
    await lru.resolve(a.key.key); // a hit: a is now more recent than b
    await lru.resolve(c.key.key);
    expect(lru.cached(a.key.key).state).toBe('valid');
    expect(lru.cached(b.key.key).state).toBe('uncached');
    expect(lru.stats.evictions).toEqual({ valid: 1, unknown: 0 });
    lru.close();
  });

  it('when asked what the caches know, then valid, refused (unknown, revoked or malformed), recheck (aged out or invalidated) or uncached, with no store call', async () => {
    const { key } = await withKey(service);
    const revoked = await withKey(service);
    const unknown = generateApiKey();
    expect(resolver.cached(key.key)).toEqual({ state: 'uncached' });
    expect(resolver.cached('ask_live_nonsense')).toEqual({ state: 'refused' });
    await resolver.resolve(key.key);
    await resolver.resolve(unknown);
    await service.revokeKey(revoked.key.id);
    await resolver.resolve(revoked.key.key);
    spy.calls.length = 0;
    expect(resolver.cached(key.key)).toMatchObject({ state: 'valid', principal: { keyId: key.id } });
    expect(resolver.cached(unknown)).toEqual({ state: 'refused' });
    expect(resolver.cached(revoked.key.key)).toEqual({ state: 'refused' });
    now += 30_001;
    expect(resolver.cached(key.key)).toEqual({ state: 'recheck' });
    expect(resolver.cached(unknown)).toEqual({ state: 'uncached' }); // an expired unknown key is anyone's to mint again
    await resolver.lookUp(key.key);
    await service.setPlan('free', { perMinute: 61, perDay: 1_001 });
    expect(resolver.cached(key.key)).toEqual({ state: 'recheck' });
    expect(spy.calls).toEqual(['resolveKey']); // the one lookUp; setPlan went to the store directly
  });

  it('when answers come from the caches or the store, then the stats count hits, unknown-key hits and misses', async () => {
    const { key } = await withKey(service);
    const unknown = generateApiKey();
    await resolver.resolve(key.key); // miss
    await resolver.resolve(key.key); // hit
    await resolver.resolve(unknown); // miss
    await resolver.resolve(unknown); // unknown hit
    await resolver.resolve(unknown); // unknown hit
    expect(resolver.stats).toEqual({ hits: 1, unknownHits: 2, misses: 2, staleServed: 0, evictions: { valid: 0, unknown: 0 }, entries: { valid: 1, unknown: 1 } });
  });

  it('when the admission of a lookup is refused, then NOT_ADMITTED and no store call; admitted, the store is asked', async () => {
    const { key } = await withKey(service);
    expect(await resolver.lookUp(key.key, { admit: async () => false })).toBe(NOT_ADMITTED);
    expect(spy.calls).toEqual([]);
    expect(await resolver.lookUp(key.key, { admit: async () => true })).toMatchObject({ keyId: key.id });
    expect(spy.calls).toEqual(['resolveKey']);
  });

  it('when an admitted lookup ends, then its admission hears whether the key was valid (a store failure is not)', async () => {
    const { key } = await withKey(service);
    const settled: boolean[] = [];
    const admission = { admit: async () => true, settle: (valid: boolean) => settled.push(valid) };
    await resolver.lookUp(key.key, admission);
    await resolver.lookUp(generateApiKey(), admission);
    spy.fail(true);
    await expect(resolver.lookUp(generateApiKey(), admission)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(settled).toEqual([true, false, false]);
  });

  it('when many requests look up one key at once, then one admission is asked and one store call made for all of them', async () => {
    const { key } = await withKey(service);
    spy.calls.length = 0;
    let admissions = 0;
    const admit = {
      admit: async () => {
        admissions++;
        await new Promise((resolve) => setTimeout(resolve, 5)); // e.g. a wait in the look-up queue
        return true;
      },
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => resolver.lookUp(key.key, admit)));
    expect(results.every((r) => r !== null && r !== NOT_ADMITTED && r.keyId === key.id)).toBe(true);
    expect(admissions).toBe(1);
    expect(spy.calls).toEqual(['resolveKey']);
  });

  it("when the shared lookup's admission is refused, then each waiting caller asks its own, so no lookup goes unpaid", async () => {
    const { key } = await withKey(service);
    spy.calls.length = 0;
    const asked: string[] = [];
    const admission = (who: string, answer: boolean) => ({
      admit: async () => {
        asked.push(who);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return answer;
      },
    });
    const [first, second, third] = await Promise.all([
      resolver.lookUp(key.key, admission('first', false)),
      resolver.lookUp(key.key, admission('second', true)),
      resolver.lookUp(key.key, admission('third', true)),
    ]);
    expect(first).toBe(NOT_ADMITTED);
    expect(second).toMatchObject({ keyId: key.id });
    expect(third).toMatchObject({ keyId: key.id });
    expect(asked).toEqual(['first', 'second']); // the third shared the second's paid lookup
    expect(spy.calls).toEqual(['resolveKey']);
  });

  it('when a plan change or a change of its own account arrives and then the store fails, then the key is served stale: a verified key keeps working', async () => {
    const { account, key } = await withKey(service);
    const principal = await resolver.resolve(key.key);
    await service.setPlan('free', { perMinute: 61, perDay: 1_001 });
    await service.updateAccount(account.id, { perDay: 2_000 });
    spy.fail(true);
    expect(await resolver.resolve(key.key)).toEqual(principal);
    expect(resolver.stats.staleServed).toBe(1);
  });

  it('when other accounts are created or changed and other plans change, then a cached key is untouched: no store call, and it survives a store outage', async () => {
    const { key } = await withKey(service, 'pro');
    const other = await withKey(service, 'free');
    await resolver.resolve(key.key);
    await resolver.resolve(other.key.key);
    spy.calls.length = 0;
    quotaChanges.length = 0;

    await service.createAccount({ name: 'Signed up', plan: 'free' });
    await service.updateAccount(other.account.id, { perMinute: 5 });
    await service.setPlan('business', { perMinute: 1_100, perDay: 110_000 });
    await memory.announce({ type: 'account', accountId: 'acct_00000000000000000000' });
    expect(resolver.cached(key.key)).toMatchObject({ state: 'valid' });
    expect(resolver.cached(other.key.key)).toEqual({ state: 'recheck' });
    expect(quotaChanges).toEqual([other.account.id, null, 'acct_00000000000000000000']);

    spy.fail(true);
    now += 31_000; // past the entry's expiry: only stale-if-error can answer now
    expect(await resolver.resolve(key.key)).toMatchObject({ keyId: key.id });
    expect(spy.calls).toEqual(['resolveKey']); // the one failed refresh after the expiry
  });

  it("when the creation events of a key and its account arrive after the key was verified (pub/sub is late), then its entry is untouched", async () => {
    const { account, key } = await withKey(service);
    await resolver.resolve(key.key);
    await memory.announce({ type: 'account-created', accountId: account.id });
    await memory.announce({ type: 'key-added', keyId: key.id, hash: hashApiKey(key.key) });
    expect(resolver.cached(key.key)).toMatchObject({ state: 'valid' });
  });

  it('when a plan changes, then only the keys of accounts on that plan are re-read', async () => {
    const free = await withKey(service, 'free');
    const pro = await withKey(service, 'pro');
    await resolver.resolve(free.key.key);
    await resolver.resolve(pro.key.key);
    await service.setPlan('pro', { perMinute: 310, perDay: 10_100 });
    expect(resolver.cached(free.key.key)).toMatchObject({ state: 'valid' });
    expect(resolver.cached(pro.key.key)).toEqual({ state: 'recheck' });
    expect((await resolver.resolve(pro.key.key))?.quotas).toEqual({ perMinute: 310, perDay: 10_100 });
  });

  it("when an account moves to another plan, then a later change of its old plan leaves its keys alone and one of its new plan re-reads them", async () => {
    const { account, key } = await withKey(service, 'free');
    await resolver.resolve(key.key);
    await service.updateAccount(account.id, { plan: 'pro' });
    expect((await resolver.resolve(key.key))?.quotas.perMinute).toBe(300);
    await service.setPlan('free', { perMinute: 61, perDay: 1_001 });
    expect(resolver.cached(key.key)).toMatchObject({ state: 'valid' });
    await service.setPlan('pro', { perMinute: 301, perDay: 10_001 });
    expect(resolver.cached(key.key)).toEqual({ state: 'recheck' });
  });

  it('when a key was refused because its account did not exist yet, then that account\'s creation lets it be read again', async () => {
    const key = generateApiKey();
    const accountId = 'acct_AAAAAAAAAAAAAAAAAAAA';
    await memory.addKey({ id: 'key_AAAAAAAAAAAAAAAAAAAA', accountId, hash: hashApiKey(key), createdAt: new Date().toISOString(), revokedAt: null });
    expect(await resolver.resolve(key)).toBeNull();
    expect(resolver.cached(key)).toEqual({ state: 'refused' });
    await memory.createAccount({ id: accountId, name: 'Late', plan: 'free', perMinute: null, perDay: null, email: null, createdAt: new Date().toISOString() });
    expect(await resolver.resolve(key)).toMatchObject({ accountId });
  });

  it('when keys of many accounts pass through a small cache, then evicted keys leave no trace in the account index', async () => {
    const indexedAccounts = (resolver: PrincipalResolver) => (resolver as unknown as { entries: { byAccount: Map<string, Set<string>> } }).entries.byAccount.size;
    const small = new PrincipalResolver({ store: spy.store, maxEntries: 2, maxUnknownEntries: 2 });
    const made = [];
    for (let i = 0; i < 6; i++) made.push(await withKey(service));
    for (const { key } of made) await small.resolve(key.key);
    expect(indexedAccounts(small)).toBe(2);
    await service.revokeKey(made[5]!.key.id);
    await small.resolve(made[5]!.key.key); // now in the unknown cache, still indexed under its account
    expect(indexedAccounts(small)).toBe(2);
    small.clear();
    expect(indexedAccounts(small)).toBe(0);
    small.close();
  });
});

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
    service = new AccountService({ store: storeA, limiter: limiter() });
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
  async function timeUntil(done: (a: Awaited<ReturnType<PrincipalResolver['resolve']>>) => boolean, key: string): Promise<number> {
    const started = Date.now();
    await waitFor(async () => done(await resolverA.resolve(key)) && done(await resolverB.resolve(key)), 2_000, 'both replicas');
    return Date.now() - started;
  }

  it('when a key is revoked through one replica, then both refuse it within 1 s', async () => {
    const { key } = await replicatedKey();
    expect(await resolverA.resolve(key.key)).not.toBeNull();
    expect(await resolverB.resolve(key.key)).not.toBeNull();
    await service.revokeKey(key.id);
    expect(await timeUntil((principal) => principal === null, key.key)).toBeLessThan(1_000);
  });

  it('when a plan changes through one replica, then both apply the new quotas within 1 s', async () => {
    const { key } = await replicatedKey('pro');
    expect((await resolverA.resolve(key.key))?.quotas).toEqual({ perMinute: 300, perDay: 10_000 });
    expect((await resolverB.resolve(key.key))?.quotas).toEqual({ perMinute: 300, perDay: 10_000 });
    await service.setPlan('pro', { perMinute: 450, perDay: 12_000 });
    const took = await timeUntil((principal) => principal?.quotas.perMinute === 450 && principal.quotas.perDay === 12_000, key.key);
    expect(took).toBeLessThan(1_000);
  });

  it('when an account override changes through one replica, then both apply it within 1 s', async () => {
    const { account, key } = await replicatedKey('free');
    await resolverA.resolve(key.key);
    await resolverB.resolve(key.key);
    await service.updateAccount(account.id, { perMinute: 7 });
    expect(await timeUntil((principal) => principal?.quotas.perMinute === 7, key.key)).toBeLessThan(1_000);
  });

  it('when a key is malformed, then Redis receives no command at all', async () => {
    const { key } = await replicatedKey();
    await redis.server.resetStats();
    for (const candidate of ['nope', 'ask_live_', `${key.key.slice(0, -1)}${key.key.endsWith('0') ? '1' : '0'}`]) {
      expect(await resolverA.resolve(candidate)).toBeNull();
    }
    expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({});
  });

  it('when a key is cached, then resolving it again sends Redis no command', async () => {
    const { key } = await replicatedKey();
    await resolverA.resolve(key.key);
    await redis.server.resetStats();
    expect(await resolverA.resolve(key.key)).not.toBeNull();
    expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({});
  });

  it('when an uncached key is resolved, then Redis receives exactly one command', async () => {
    const { key } = await replicatedKey();
    // Commands a script runs show up in commandstats too: one EVAL is the one round trip; inside it,
    // GET of the hash index, HGETALL of the key and of its account, HGET of the plan's numbers.
    await redis.server.resetStats();
    expect(await resolverA.resolve(key.key)).not.toBeNull();
    expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({ eval: 1, get: 1, hgetall: 2, hget: 1 });
    await redis.server.resetStats();
    expect(await resolverA.resolve(generateApiKey())).toBeNull();
    expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({ eval: 1, get: 1 });
  });

  it('when a flood of distinct unknown keys passes, then a known key is still cached: no Redis command for it', async () => {
    const { key } = await replicatedKey();
    const small = new PrincipalResolver({ store: storeA, maxEntries: 100, maxUnknownEntries: 50 });
    try {
      await small.resolve(key.key);
      for (let i = 0; i < 500; i++) expect(await small.resolve(generateApiKey())).toBeNull();
      await redis.server.resetStats();
      expect(await small.resolve(key.key)).not.toBeNull();
      expect(commandsBesidesStats(await redis.server.commandStats())).toEqual({});
    } finally {
      small.close();
    }
  });

  it('when Redis goes away, then a replica keeps serving cached keys; when it returns (empty), the reset makes the replica re-read', async () => {
    const { key } = await replicatedKey();
    await resolverB.resolve(key.key);
    await redis.server.stop();
    expect(await resolverB.resolve(key.key)).not.toBeNull();
    await redis.server.start(); // no persistence: the key is gone, which only a re-read can notice
    await waitFor(async () => (await resolverB.resolve(key.key)) === null, 5_000, 'replica B to re-read after the reconnect');
  });
});

/** The stats include the stats calls themselves. */
function commandsBesidesStats(stats: Record<string, number>): Record<string, number> {
  const rest = { ...stats };
  for (const name of Object.keys(rest)) if (name === 'info' || name.startsWith('config')) delete rest[name];
  return rest;
}
