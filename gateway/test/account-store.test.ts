import { MemoryAccountStore } from '../src/accounts/memory-account-store';
import { RedisAccountStore } from '../src/accounts/redis-account-store';
import { REMOVE_RETIRED_KEYS } from '../src/accounts/redis-account-scripts';
import type { ChangeEvent } from '../src/accounts/types';
import { generateApiKey, hashApiKey, newAccountId, newKeyId } from '../src/keys/api-key';
import { waitFor } from '../../test/helpers/ports';
import { accountStoreContract } from './account-store.contract';
import { useRedis } from './support/redis';

const redis = useRedis();

accountStoreContract('MemoryAccountStore', async () => new MemoryAccountStore());

accountStoreContract('RedisAccountStore', async () => {
  await redis.server.flushAll();
  const store = await RedisAccountStore.connect(redis.url);
  await store.whenSubscribed();
  return store;
});

describe('MemoryAccountStore specifics', () => {
  it('when a write completes, then listeners have already heard of it (synchronously)', async () => {
    const store = new MemoryAccountStore();
    const events: ChangeEvent[] = [];
    store.onChange((event) => events.push(event));
    await store.setPlan({ name: 'pro', perMinute: 1, perDay: 2 });
    expect(events).toEqual([{ type: 'plan', plan: 'pro' }]);
  });
});

describe('RedisAccountStore specifics', () => {
  let store: RedisAccountStore;

  beforeEach(async () => {
    await redis.reset();
    store = await RedisAccountStore.connect(redis.url);
    await store.whenSubscribed();
  });

  afterEach(async () => {
    await store.close();
  });

  it('when an account and a key are written, then Redis holds them under the {gw} hash tag and never the key itself', async () => {
    const key = generateApiKey();
    const accountId = newAccountId();
    const keyId = newKeyId();
    await store.createAccount({ id: accountId, name: 'A', plan: 'free', perMinute: null, perDay: null, email: null, createdAt: '2026-01-01T00:00:00.000Z' });
    await store.addKey({ id: keyId, accountId, hash: hashApiKey(key), createdAt: '2026-01-01T00:00:00.000Z', revokedAt: null });
    await store.setPlan({ name: 'pro', perMinute: 1, perDay: 2 });
    const keys = await redis.server.client.keys('*');
    expect(keys.sort()).toEqual(
      [
        `{gw}:account:${accountId}`,
        `{gw}:account:${accountId}:key-version`,
        `{gw}:account:${accountId}:keys`,
        `{gw}:key:${keyId}`,
        `{gw}:keyhash:${hashApiKey(key)}`,
        '{gw}:plans',
        '{gw}:accounts:created',
        '{gw}:accounts:plan:free',
        '{gw}:accounts:search',
      ].sort(),
    );
    for (const name of keys) {
      expect((await redis.server.client.dumpBuffer(name)).includes(key)).toBe(false);
    }
  });

  it('when two stores share one Redis, then a write through one is heard by the other', async () => {
    const other = await RedisAccountStore.connect(redis.url);
    try {
      await other.whenSubscribed();
      const events: ChangeEvent[] = [];
      other.onChange((event) => events.push(event));
      await store.setPlan({ name: 'business', perMinute: 5, perDay: 6 });
      await waitFor(() => events.length === 1, 1_000, 'the event on the other store');
      expect(events).toEqual([{ type: 'plan', plan: 'business' }]);
      expect(await other.getPlan('business')).toEqual({ name: 'business', perMinute: 5, perDay: 6 });
    } finally {
      await other.close();
    }
  });

  it('when garbage is published on the channel, then listeners hear nothing', async () => {
    const events: ChangeEvent[] = [];
    store.onChange((event) => events.push(event));
    for (const garbage of ['not json', '{"type":"key","keyId":1}', '{"type":"plan","plan":"gold"}']) await redis.server.client.publish(store.channel, garbage);
    await store.setPlan({ name: 'free', perMinute: 1, perDay: 2 });
    await waitFor(() => events.length > 0, 1_000, 'the marker event');
    expect(events).toEqual([{ type: 'plan', plan: 'free' }]);
  });

  it('when Redis is down, then reads and writes fail fast as StoreUnavailableError', async () => {
    await redis.server.stop();
    const started = Date.now();
    await expect(store.getAccount(newAccountId())).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    await expect(store.setPlan({ name: 'free', perMinute: 1, perDay: 2 })).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    // Not queued until Redis is back (it is not, in this test): any bound far below the test's own.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('when the subscriber reconnects after an outage, then listeners get a reset and hear later writes again', async () => {
    const events: ChangeEvent[] = [];
    store.onChange((event) => events.push(event));
    await redis.server.stop();
    await redis.server.start();
    await waitFor(() => events.some((event) => event.type === 'reset'), 5_000, 'a reset event');
    await waitFor(async () => (await store.setPlan({ name: 'pro', perMinute: 9, perDay: 99 }).then(() => true)), 5_000, 'the command connection');
    await waitFor(() => events.some((event) => event.type === 'plan'), 1_000, 'the plan event after the reconnect');
  });

  it('when a search has to look further than one script call may, then it continues in more calls and never scans the keyspace', async () => {
    const small = await RedisAccountStore.connect(redis.url, { listBudget: 7 });
    try {
      for (let i = 0; i < 40; i++) {
        const name = i % 10 === 3 ? `Needle ${i}` : `Hay ${i}`;
        await small.createAccount({ id: newAccountId(), name, plan: 'free', perMinute: null, perDay: null, email: null, createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() });
      }
      await redis.server.resetStats();
      const first = await small.listAccounts({ limit: 3, search: 'needle' });
      expect(first.accounts.map((account) => account.name)).toEqual(['Needle 3', 'Needle 13', 'Needle 23']);
      expect(first.next).not.toBeNull();
      const stats = await redis.server.commandStats();
      // 34 entries looked at (up to the fourth match) in calls of at most 7.
      expect((stats['eval'] ?? 0) + (stats['evalsha'] ?? 0)).toBe(5);
      expect(stats['scan'] ?? 0).toBe(0);
      expect(stats['keys'] ?? 0).toBe(0);
      const rest = await small.listAccounts({ limit: 3, search: 'needle', after: first.next! });
      expect(rest).toEqual({ accounts: [expect.objectContaining({ name: 'Needle 33' })], next: null });
    } finally {
      await small.close();
    }
  });

  it('when a key was stored before the lifecycle fields existed, then it reads without them; an access level this version does not know reads as read-only', async () => {
    const accountId = newAccountId();
    const [legacyId, futureId] = [newKeyId(), newKeyId()];
    const [legacyHash, futureHash] = [hashApiKey(generateApiKey()), hashApiKey(generateApiKey())];
    const fields = (id: string, hash: string) => ['id', id, 'accountId', accountId, 'hash', hash, 'createdAt', '2025-01-01T00:00:00.000Z', 'revokedAt', ''];
    const client = redis.server.client;
    await client.hset(`{gw}:key:${legacyId}`, ...fields(legacyId, legacyHash));
    await client.set(`{gw}:keyhash:${legacyHash}`, legacyId);
    await client.hset(`{gw}:key:${futureId}`, ...fields(futureId, futureHash), 'access', 'write-only');
    await client.set(`{gw}:keyhash:${futureHash}`, futureId);
    expect((await store.resolveKey(legacyHash))?.key).toEqual({ id: legacyId, accountId, hash: legacyHash, createdAt: '2025-01-01T00:00:00.000Z', revokedAt: null });
    expect((await store.getKey(futureId))?.access).toBe('read-only');
  });

  it('when the removal script is handed a key that still works, then it keeps it: whatever the rule chose, a key in use never goes', async () => {
    const accountId = newAccountId();
    const key = { id: newKeyId(), accountId, hash: hashApiKey(generateApiKey()), createdAt: '2026-01-01T00:00:00.000Z', revokedAt: null };
    const rolled = { ...key, id: newKeyId(), hash: hashApiKey(generateApiKey()), expiresAt: '2026-01-02T00:00:00.000Z', replacedBy: key.id };
    await store.addKey(key);
    await store.addKey(rolled);
    const remove = (ids: string[], at: string) =>
      redis.server.client.eval(REMOVE_RETIRED_KEYS, 1 + ids.length, '{gw}:keys:last-used', ...ids.map((id) => `{gw}:key:${id}`), store.channel, at, '{gw}:keyhash:', '{gw}:account:', ':keys', ...ids);
    // At the first instant the rolled key is in its grace period: neither goes.
    expect(await remove([key.id, rolled.id], '2026-01-01T12:00:00.000Z')).toEqual([]);
    expect(await remove([key.id, rolled.id], '2026-01-02T00:00:00.000Z')).toEqual([rolled.id]);
    expect((await store.listKeys(accountId)).map((listed) => listed.id)).toEqual([key.id]);
  });

  it('when an account stored before the indexes existed is updated, then it joins them', async () => {
    const id = newAccountId();
    await redis.server.client.hset(`{gw}:account:${id}`, 'id', id, 'name', 'Legacy', 'plan', 'pro', 'perMinute', '', 'perDay', '', 'email', '', 'createdAt', '2025-01-01T00:00:00.000Z');
    expect((await store.listAccounts({ limit: 10 })).accounts).toEqual([]);
    const legacy = (await store.getAccount(id))!;
    await store.updateAccount({ ...legacy, plan: 'business' });
    expect((await store.listAccounts({ limit: 10, plan: 'business', search: 'legacy' })).accounts.map((account) => account.id)).toEqual([id]);
  });
});
