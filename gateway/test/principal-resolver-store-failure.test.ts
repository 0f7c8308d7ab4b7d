import { StoreUnavailableError } from '../src/store-errors';
import { PrincipalResolver } from '../src/accounts/principal-resolver';
import { generateApiKey } from '../src/keys/api-key';
import { useResolverOnMemoryStore, withKey } from './support/principal-resolver';
import { resolveKey } from './support/resolve-key';

/**
 * A store that fails or does not answer: verified keys served stale, the failure surfacing where
 * nothing is cached, the lookup deadline.
 */
describe('PrincipalResolver: when the store fails or does not answer (in-process store)', () => {
  const setup = useResolverOnMemoryStore();

  it('when the store fails after an entry expired, then the expired answer is served; with nothing cached, the failure surfaces', async () => {
    const { spy, service, clock, resolver } = setup;
    const { key } = await withKey(service);
    const principal = await resolveKey(resolver, key.key);
    clock.now += 31_000;
    spy.fail(true);
    expect(await resolveKey(resolver, key.key)).toEqual(principal);
    expect(resolver.stats.staleServed).toBe(1);
    const callsAfterFailure = spy.calls.length;
    clock.now += 500;
    expect(await resolveKey(resolver, key.key)).toEqual(principal); // within the retry pause: no store call
    expect(spy.calls.length).toBe(callsAfterFailure);
    await expect(resolveKey(resolver, generateApiKey())).rejects.toBeInstanceOf(StoreUnavailableError);
    clock.now += 300_000;
    await expect(resolveKey(resolver, key.key)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('when the change feed was interrupted (reset), then keys are re-read, yet served stale while the store still fails', async () => {
    const { memory, spy, service, resolver } = setup;
    const { key } = await withKey(service);
    const principal = await resolveKey(resolver, key.key);
    await memory.announce({ type: 'reset' });
    const before = spy.calls.length;
    expect(await resolveKey(resolver, key.key)).toEqual(principal);
    expect(spy.calls.length).toBeGreaterThan(before); // re-read, not served from the cache
    await memory.announce({ type: 'reset' });
    spy.fail(true);
    expect(await resolveKey(resolver, key.key)).toEqual(principal);
    expect(resolver.stats.staleServed).toBe(1);
  });

  it('when a plan change or a change of its own account arrives and then the store fails, then the key is served stale: a verified key keeps working', async () => {
    const { spy, service, resolver } = setup;
    const { account, key } = await withKey(service);
    const principal = await resolveKey(resolver, key.key);
    await service.setPlan('free', { perMinute: 61, perDay: 1_001 });
    await service.updateAccount(account.id, { perDay: 2_000 });
    spy.fail(true);
    expect(await resolveKey(resolver, key.key)).toEqual(principal);
    expect(resolver.stats.staleServed).toBe(1);
  });

  it('when the store does not answer, then the lookup fails as unavailable after the lookup deadline', async () => {
    const { spy } = setup;
    const slow = new PrincipalResolver({ store: spy.store, lookupTimeoutMs: 100 });
    const release = spy.hold();
    const started = Date.now();
    await expect(resolveKey(slow, generateApiKey())).rejects.toBeInstanceOf(StoreUnavailableError);
    // Ended by the 100 ms deadline, not by the store (it holds the lookup until released, below).
    expect(Date.now() - started).toBeLessThan(5_000);
    release();
    slow.close();
  });
});
