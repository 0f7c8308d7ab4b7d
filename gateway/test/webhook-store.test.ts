import { connectCluster } from '../src/redis';
import { MemoryWebhookStore } from '../src/webhooks/memory-webhook-store';
import { RedisWebhookStore } from '../src/webhooks/redis-webhook-store';
import { TestRedisCluster } from '../../test/helpers/redis-cluster';
import { webhookStoreContract } from './webhook-store.contract';
import { useRedis } from './support/redis';

const KEPT = 5;
const redis = useRedis();

webhookStoreContract('MemoryWebhookStore', async () => new MemoryWebhookStore(KEPT));

webhookStoreContract('RedisWebhookStore', async () => {
  await redis.server.flushAll();
  return new RedisWebhookStore(await redis.connection(), { deliveriesKept: KEPT });
});

describe('on a Redis Cluster', () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await TestRedisCluster.start();
  }, 30_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  webhookStoreContract('RedisWebhookStore on Redis Cluster', async () => {
    await cluster.flushAll();
    return new RedisWebhookStore(redis.closeAfter(await connectCluster(cluster.addresses)), { deliveriesKept: KEPT });
  });
});
