import type { ApiKeyRecord } from '../src/accounts/types';
import { generateApiKey, hashApiKey } from '../src/keys/api-key';
import { useResolverOnMemoryStore, withKey } from './support/principal-resolver';
import { resolveKey } from './support/resolve-key';

/**
 * What a key resolves to: a principal with its quotas, access and expiry, or null (malformed,
 * unknown, revoked, an account not there yet).
 */
describe('PrincipalResolver: what a key resolves to (in-process store)', () => {
  const setup = useResolverOnMemoryStore();

  it('when a valid key is resolved, then the principal carries the key, the account and the plan quotas', async () => {
    const { service, resolver } = setup;
    const { account, key } = await withKey(service, 'pro');
    expect(await resolveKey(resolver, key.key)).toEqual({ keyId: key.id, accountId: account.id, plan: 'pro', quotas: { perMinute: 300, perDay: 10_000 }, access: 'read-write', expiresAt: null, replacedBy: null });
  });

  it('when the key is malformed or mistyped, then null with no store call at all', async () => {
    const { spy, service, resolver } = setup;
    const { key } = await withKey(service);
    const typo = key.key.slice(0, 15) + (key.key[15] === 'a' ? 'b' : 'a') + key.key.slice(16);
    for (const candidate of ['', 'Bearer', 'ask_live_short', typo, `${key.key}x`, key.key.toUpperCase()]) {
      expect(await resolveKey(resolver, candidate)).toBeNull();
    }
    expect(spy.calls).toEqual([]);
  });

  it('when a well-formed key is unknown, then null, remembered, and forgotten as soon as that key is added', async () => {
    const { memory, spy, service, resolver } = setup;
    const key = generateApiKey();
    expect(await resolveKey(resolver, key)).toBeNull();
    expect(await resolveKey(resolver, key)).toBeNull();
    expect(spy.calls).toEqual(['resolveKey']);
    const account = await service.createAccount({ name: 'Late', plan: 'free' });
    const record: ApiKeyRecord = { id: 'key_AAAAAAAAAAAAAAAAAAAA', accountId: account.id, hash: hashApiKey(key), createdAt: new Date().toISOString(), revokedAt: null };
    await memory.addKey(record);
    expect(await resolveKey(resolver, key)).toMatchObject({ keyId: record.id, accountId: account.id });
  });

  it('when a key is revoked, then it resolves to null at once', async () => {
    const { service, resolver } = setup;
    const { key } = await withKey(service);
    expect(await resolveKey(resolver, key.key)).not.toBeNull();
    await service.revokeKey(key.id);
    expect(await resolveKey(resolver, key.key)).toBeNull();
  });

  it('when a key has an access level and an expiry, then its principal carries both; once rolled, the cached principal is re-read with its new expiry and replacement', async () => {
    const { spy, service, resolver } = setup;
    const account = await service.createAccount({ name: 'Test', plan: 'free' });
    const key = await service.createKey(account.id, 'test', { access: 'read-only', expiresAt: '2999-01-01T00:00:00Z' });
    expect(await resolveKey(resolver, key.key)).toMatchObject({ access: 'read-only', expiresAt: Date.parse('2999-01-01T00:00:00Z'), replacedBy: null });
    const rolled = await service.rollKey(key.id, { gracePeriodSeconds: 60 });
    const before = spy.calls.length;
    expect(await resolveKey(resolver, key.key)).toMatchObject({ access: 'read-only', expiresAt: Date.parse(rolled.replaces.expiresAt), replacedBy: rolled.id });
    expect(spy.calls.length).toBe(before + 1);
    expect(await resolveKey(resolver, rolled.key)).toMatchObject({ access: 'read-only', expiresAt: null, replacedBy: null });
  });

  it('when an account has overrides, then they win over the plan, one number at a time', async () => {
    const { service, resolver } = setup;
    const { account, key } = await withKey(service, 'pro');
    await service.updateAccount(account.id, { perDay: 123_456 });
    expect((await resolveKey(resolver, key.key))?.quotas).toEqual({ perMinute: 300, perDay: 123_456 });
    const enterprise = await withKey(service, 'enterprise', { perMinute: 5_000, perDay: 900_000 });
    expect((await resolveKey(resolver, enterprise.key.key))?.quotas).toEqual({ perMinute: 5_000, perDay: 900_000 });
  });

  it('when a key was refused because its account did not exist yet, then that account\'s creation lets it be read again', async () => {
    const { memory, resolver } = setup;
    const key = generateApiKey();
    const accountId = 'acct_AAAAAAAAAAAAAAAAAAAA';
    await memory.addKey({ id: 'key_AAAAAAAAAAAAAAAAAAAA', accountId, hash: hashApiKey(key), createdAt: new Date().toISOString(), revokedAt: null });
    expect(await resolveKey(resolver, key)).toBeNull();
    expect(resolver.cached(hashApiKey(key))).toEqual({ state: 'refused' });
    await memory.createAccount({ id: accountId, name: 'Late', plan: 'free', perMinute: null, perDay: null, email: null, createdAt: new Date().toISOString() });
    expect(await resolveKey(resolver, key)).toMatchObject({ accountId });
  });
});
