import { PrincipalResolver } from '../src/accounts/principal-resolver';
import { generateApiKey, hashApiKey } from '../src/keys/api-key';
import { useResolverOnMemoryStore, withKey } from './support/principal-resolver';
import { resolveKey } from './support/resolve-key';

/**
 * The resolver's caches: hits without a store call, one lookup shared, the safety-net expiry,
 * bounds and eviction, and what `cached` and `stats` tell.
 */
describe('PrincipalResolver: its caches, their expiry and eviction (in-process store)', () => {
  const setup = useResolverOnMemoryStore();

  it('when a key was resolved once, then the second resolve makes no store call', async () => {
    const { spy, service, resolver } = setup;
    const { key } = await withKey(service);
    await resolveKey(resolver, key.key);
    const before = spy.calls.length;
    expect(await resolveKey(resolver, key.key)).not.toBeNull();
    expect(spy.calls.length).toBe(before);
  });

  it('when many requests with one new key arrive together, then they share one lookup', async () => {
    const { spy, service, resolver } = setup;
    const { key } = await withKey(service);
    spy.calls.length = 0;
    const results = await Promise.all(Array.from({ length: 20 }, () => resolveKey(resolver, key.key)));
    expect(new Set(results.map((r) => r?.keyId))).toEqual(new Set([key.id]));
    expect(spy.calls).toEqual(['resolveKey']);
  });

  it('when an entry is older than the safety-net expiry, then the store is asked again', async () => {
    const { spy, service, clock, resolver } = setup;
    const { key } = await withKey(service);
    await resolveKey(resolver, key.key);
    const before = spy.calls.length;
    clock.now += 29_999;
    await resolveKey(resolver, key.key);
    expect(spy.calls.length).toBe(before);
    clock.now += 2;
    await resolveKey(resolver, key.key);
    expect(spy.calls.length).toBeGreaterThan(before);
  });

  it('when asked what the caches know, then valid, refused (unknown or revoked), recheck (aged out or invalidated) or uncached, with no store call', async () => {
    const { spy, service, clock, resolver } = setup;
    const { key } = await withKey(service);
    const revoked = await withKey(service);
    const unknown = generateApiKey();
    expect(resolver.cached(hashApiKey(key.key))).toEqual({ state: 'uncached' });
    await resolveKey(resolver, key.key);
    await resolveKey(resolver, unknown);
    await service.revokeKey(revoked.key.id);
    await resolveKey(resolver, revoked.key.key);
    spy.calls.length = 0;
    expect(resolver.cached(hashApiKey(key.key))).toMatchObject({ state: 'valid', principal: { keyId: key.id } });
    expect(resolver.cached(hashApiKey(unknown))).toEqual({ state: 'refused' });
    expect(resolver.cached(hashApiKey(revoked.key.key))).toEqual({ state: 'refused' });
    clock.now += 30_001;
    expect(resolver.cached(hashApiKey(key.key))).toEqual({ state: 'recheck' });
    expect(resolver.cached(hashApiKey(unknown))).toEqual({ state: 'uncached' }); // an expired unknown key is anyone's to mint again
    await resolver.lookUp(hashApiKey(key.key));
    await service.setPlan('free', { perMinute: 61, perDay: 1_001 });
    expect(resolver.cached(hashApiKey(key.key))).toEqual({ state: 'recheck' });
    expect(spy.calls).toEqual(['resolveKey']); // the one lookUp; setPlan went to the store directly
  });

  it('when answers come from the caches or the store, then the stats count hits, unknown-key hits and misses', async () => {
    const { service, resolver } = setup;
    const { key } = await withKey(service);
    const unknown = generateApiKey();
    await resolveKey(resolver, key.key); // miss
    await resolveKey(resolver, key.key); // hit
    await resolveKey(resolver, unknown); // miss
    await resolveKey(resolver, unknown); // unknown hit
    await resolveKey(resolver, unknown); // unknown hit
    expect(resolver.stats).toEqual({ hits: 1, unknownHits: 2, misses: 2, staleServed: 0, evictions: { valid: 0, unknown: 0 }, entries: { valid: 1, unknown: 1 } });
  });

  it('when more unknown keys than maxUnknownEntries are seen, then the oldest unknown ones are evicted and no valid key is', async () => {
    const { spy, service } = setup;
    const { key } = await withKey(service);
    const small = new PrincipalResolver({ store: spy.store, maxEntries: 2, maxUnknownEntries: 3 });
    await resolveKey(small, key.key);
    for (let i = 0; i < 10; i++) await resolveKey(small, generateApiKey());
    expect(small.stats).toMatchObject({ entries: { valid: 1, unknown: 3 }, evictions: { valid: 0, unknown: 7 } });
    small.close();
  });

  it('when a flood of distinct well-formed unknown keys passes, then a known key stays cached and costs no store call', async () => {
    const { spy, service } = setup;
    const { key } = await withKey(service);
    const small = new PrincipalResolver({ store: spy.store, maxEntries: 100, maxUnknownEntries: 50 });
    await resolveKey(small, key.key);
    for (let i = 0; i < 1_000; i++) expect(await resolveKey(small, generateApiKey())).toBeNull();
    spy.calls.length = 0;
    expect(await resolveKey(small, key.key)).not.toBeNull();
    expect(spy.calls).toEqual([]);
    small.close();
  });

  it('when the cache of valid keys is full, then the least recently used key is evicted, not the one just used', async () => {
    const { spy, service } = setup;
    const lru = new PrincipalResolver({ store: spy.store, maxEntries: 2 });
    const [a, b, c] = [await withKey(service), await withKey(service), await withKey(service)];
    await resolveKey(lru, a.key.key);
    await resolveKey(lru, b.key.key);
    await resolveKey(lru, a.key.key); // a hit: a is now more recent than b
    await resolveKey(lru, c.key.key);
    expect(lru.cached(hashApiKey(a.key.key)).state).toBe('valid');
    expect(lru.cached(hashApiKey(b.key.key)).state).toBe('uncached');
    expect(lru.stats.evictions).toEqual({ valid: 1, unknown: 0 });
    lru.close();
  });

  it('when keys of many accounts pass through a small cache, then evicted keys leave no trace in the account index', async () => {
    const { spy, service } = setup;
    const indexedAccounts = (resolver: PrincipalResolver) => (resolver as unknown as { entries: { byAccount: Map<string, Set<string>> } }).entries.byAccount.size;
    const small = new PrincipalResolver({ store: spy.store, maxEntries: 2, maxUnknownEntries: 2 });
    const made = [];
    for (let i = 0; i < 6; i++) made.push(await withKey(service));
    for (const { key } of made) await resolveKey(small, key.key);
    expect(indexedAccounts(small)).toBe(2);
    await service.revokeKey(made[5]!.key.id);
    await resolveKey(small, made[5]!.key.key); // now in the unknown cache, still indexed under its account
    expect(indexedAccounts(small)).toBe(2);
    small.clear();
    expect(indexedAccounts(small)).toBe(0);
    small.close();
  });
});
