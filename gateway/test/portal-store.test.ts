import type { Redis } from '../src/redis';
import { MemoryPortalStore } from '../src/portal/memory-store';
import { RedisPortalStore } from '../src/portal/redis-store';
import { StoreUnavailableError } from '../src/store-errors';
import { portalStoreContract } from './portal-store.contract';
import { useRedis, useRedisCluster } from './support/redis';

const redis = useRedis();
let client: Redis;

beforeAll(async () => {
  client = await redis.connection();
});

portalStoreContract('MemoryPortalStore', async () => new MemoryPortalStore());

portalStoreContract('RedisPortalStore', async () => {
  await redis.server.flushAll();
  return new RedisPortalStore(client);
});

describe('on a Redis Cluster', () => {
  const cluster = useRedisCluster();
  portalStoreContract('RedisPortalStore on Redis Cluster', async () => new RedisPortalStore(await cluster.emptyConnection()));
});

describe('RedisPortalStore specifics', () => {
  it('when keys are written, then every one of them starts with the configured prefix', async () => {
    await redis.server.flushAll();
    const store = new RedisPortalStore(client, '{gw}:');
    await store.reserveEmail('ann@example.com', 'r1', 60_000);
    await store.saveSession('s1', { accountId: 'acct_1', csrfToken: 't', createdAtMs: 1, lastSeenAtMs: 1 }, 60_000);
    const keys = (await client.keys('*')).sort();
    expect(keys).toEqual(['{gw}:portal:login:ann@example.com', '{gw}:portal:session:s1', '{gw}:portal:sessions-of:acct_1']);
  });

  it('when a stored value is not what the portal wrote, then it reads as absent', async () => {
    await redis.server.flushAll();
    const store = new RedisPortalStore(client);
    await client.set('{gw}:portal:session:s1', 'not json');
    await client.set('{gw}:portal:login:ann@example.com', JSON.stringify({ accountId: 42 }));
    expect(await store.findSession('s1')).toBeNull();
    expect(await store.findCredential('ann@example.com')).toBeNull();
  });

  it('when Redis is down, then calls fail fast with StoreUnavailableError', async () => {
    await redis.server.stop();
    try {
      const store = new RedisPortalStore(client);
      const started = Date.now();
      await expect(store.findSession('s1')).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(5_000); // not held until the test ends (far from it on any machine)
    } finally {
      await redis.server.start();
    }
  });
});
