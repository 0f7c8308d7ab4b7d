import { MemoryPortalEmailStore } from '../src/portal/email-store';
import { RedisPortalEmailStore } from '../src/portal/redis-email-store';
import type { Redis } from '../src/redis';
import { portalEmailStoreContract } from './portal-email-store.contract';
import { useRedis, useRedisCluster } from './support/redis';

const redis = useRedis();
let client: Redis;

beforeAll(async () => {
  client = await redis.connection();
});

portalEmailStoreContract('MemoryPortalEmailStore', async () => new MemoryPortalEmailStore());

portalEmailStoreContract('RedisPortalEmailStore', async () => {
  await redis.server.flushAll();
  return new RedisPortalEmailStore(client, '{gw}:');
});

describe('on a Redis Cluster', () => {
  const cluster = useRedisCluster();
  portalEmailStoreContract('RedisPortalEmailStore on Redis Cluster', async () => new RedisPortalEmailStore(await cluster.emptyConnection(), '{gw}:'));
});

describe('RedisPortalEmailStore specifics', () => {
  it('when links and profiles are written, then only digests are stored, under the prefix', async () => {
    await redis.server.flushAll();
    const store = new RedisPortalEmailStore(client, '{gw}:');
    await store.saveLink('verify', 'acct_1', { digest: 'd'.repeat(64), email: 'ann@example.com' }, 60_000);
    await store.updateProfile('acct_1', { quotaEmails: false });
    expect((await client.keys('*')).sort()).toEqual(['{gw}:portal:email-link:verify:acct_1', '{gw}:portal:email-profile:acct_1']);
  });
});
