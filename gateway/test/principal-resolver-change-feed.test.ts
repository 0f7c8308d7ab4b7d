import { generateApiKey, hashApiKey } from '../src/keys/api-key';
import { useResolverOnMemoryStore, withKey } from './support/principal-resolver';
import { resolveKey } from './support/resolve-key';

/** Resolves once the resolver has called the store (a held call counts): its lookup is under way. */
async function storeCalled(calls: readonly string[]): Promise<void> {
  while (!calls.includes('resolveKey')) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * What the change feed makes the resolver re-read (and what it leaves alone), and what it tells the
 * limiter hook.
 */
describe('PrincipalResolver: what the change feed makes it re-read (in-process store)', () => {
  const setup = useResolverOnMemoryStore();

  it('when an account or a plan changes, then its keys are re-read and the limiter hook is told which account (or null)', async () => {
    const { service, quotaChanges, resolver } = setup;
    const { account, key } = await withKey(service, 'pro');
    quotaChanges.length = 0;
    await resolveKey(resolver, key.key);
    await service.updateAccount(account.id, { perMinute: 42 });
    expect(quotaChanges).toEqual([account.id]);
    expect((await resolveKey(resolver, key.key))?.quotas.perMinute).toBe(42);
    await service.setPlan('pro', { perMinute: 1, perDay: 7 });
    expect(quotaChanges).toEqual([account.id, null]);
    expect((await resolveKey(resolver, key.key))?.quotas).toEqual({ perMinute: 42, perDay: 7 });
  });

  it('when a key changes, then the limiter hook is not told (quotas did not change)', async () => {
    const { service, quotaChanges } = setup;
    const { key } = await withKey(service);
    quotaChanges.length = 0;
    await service.revokeKey(key.id);
    expect(quotaChanges).toEqual([]);
  });

  it('when a plan changes, then only the keys of accounts on that plan are re-read', async () => {
    const { service, resolver } = setup;
    const free = await withKey(service, 'free');
    const pro = await withKey(service, 'pro');
    await resolveKey(resolver, free.key.key);
    await resolveKey(resolver, pro.key.key);
    await service.setPlan('pro', { perMinute: 310, perDay: 10_100 });
    expect(resolver.cached(hashApiKey(free.key.key))).toMatchObject({ state: 'valid' });
    expect(resolver.cached(hashApiKey(pro.key.key))).toEqual({ state: 'recheck' });
    expect((await resolveKey(resolver, pro.key.key))?.quotas).toEqual({ perMinute: 310, perDay: 10_100 });
  });

  it("when an account moves to another plan, then a later change of its old plan leaves its keys alone and one of its new plan re-reads them", async () => {
    const { service, resolver } = setup;
    const { account, key } = await withKey(service, 'free');
    await resolveKey(resolver, key.key);
    await service.updateAccount(account.id, { plan: 'pro' });
    expect((await resolveKey(resolver, key.key))?.quotas.perMinute).toBe(300);
    await service.setPlan('free', { perMinute: 61, perDay: 1_001 });
    expect(resolver.cached(hashApiKey(key.key))).toMatchObject({ state: 'valid' });
    await service.setPlan('pro', { perMinute: 301, perDay: 10_001 });
    expect(resolver.cached(hashApiKey(key.key))).toEqual({ state: 'recheck' });
  });

  it('when other accounts are created or changed and other plans change, then a cached key is untouched: no store call, and it survives a store outage', async () => {
    const { memory, spy, service, clock, quotaChanges, resolver } = setup;
    const { key } = await withKey(service, 'pro');
    const other = await withKey(service, 'free');
    await resolveKey(resolver, key.key);
    await resolveKey(resolver, other.key.key);
    spy.calls.length = 0;
    quotaChanges.length = 0;

    await service.createAccount({ name: 'Signed up', plan: 'free' });
    await service.updateAccount(other.account.id, { perMinute: 5 });
    await service.setPlan('business', { perMinute: 1_100, perDay: 110_000 });
    await memory.announce({ type: 'account', accountId: 'acct_00000000000000000000' });
    expect(resolver.cached(hashApiKey(key.key))).toMatchObject({ state: 'valid' });
    expect(resolver.cached(hashApiKey(other.key.key))).toEqual({ state: 'recheck' });
    expect(quotaChanges).toEqual([other.account.id, null, 'acct_00000000000000000000']);

    spy.fail(true);
    clock.now += 31_000; // past the entry's expiry: only stale-if-error can answer now
    expect(await resolveKey(resolver, key.key)).toMatchObject({ keyId: key.id });
    expect(spy.calls).toEqual(['resolveKey']); // the one failed refresh after the expiry
  });

  it("when the creation events of a key and its account arrive after the key was verified (pub/sub is late), then its entry is untouched", async () => {
    const { memory, service, resolver } = setup;
    const { account, key } = await withKey(service);
    await resolveKey(resolver, key.key);
    await memory.announce({ type: 'account-created', accountId: account.id });
    await memory.announce({ type: 'key-added', keyId: key.id, hash: hashApiKey(key.key) });
    expect(resolver.cached(hashApiKey(key.key))).toMatchObject({ state: 'valid' });
  });

  it("when a key's creation event arrives while its own lookup is under way (pub/sub is late), then the valid answer is cached and survives an outage of the store", async () => {
    const { memory, spy, service, resolver } = setup;
    const { key } = await withKey(service);
    const release = spy.hold();
    const pending = resolveKey(resolver, key.key);
    await storeCalled(spy.calls);
    await memory.announce({ type: 'key-added', keyId: key.id, hash: hashApiKey(key.key) });
    release();
    expect(await pending).toMatchObject({ keyId: key.id });
    expect(resolver.cached(hashApiKey(key.key))).toMatchObject({ state: 'valid' });
    spy.fail(true);
    expect(await resolveKey(resolver, key.key)).toMatchObject({ keyId: key.id });
  });

  it('when a key is added while a lookup that found it unknown is under way, then the refusal is not cached', async () => {
    const { memory, spy, resolver } = setup;
    const key = generateApiKey();
    const release = spy.hold();
    const pending = resolveKey(resolver, key);
    await storeCalled(spy.calls); // the lookup has begun: its read may come before the key exists
    await memory.announce({ type: 'key-added', keyId: 'key_00000000000000000000', hash: hashApiKey(key) });
    release();
    expect(await pending).toBeNull(); // read before the key existed
    expect(resolver.cached(hashApiKey(key))).toEqual({ state: 'uncached' });
  });

  it('when a key is revoked while its lookup is under way, then the stale answer is not cached', async () => {
    const { memory, spy, service, resolver } = setup;
    const { key } = await withKey(service);
    const release = spy.hold();
    const pending = resolveKey(resolver, key.key);
    await memory.revokeKey(key.id, new Date().toISOString());
    release();
    await pending; // may still be the pre-revocation answer: it was read before the revocation
    expect(await resolveKey(resolver, key.key)).toBeNull();
  });
});
