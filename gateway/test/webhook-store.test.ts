import { MemoryWebhookStore } from '../src/webhooks/memory-webhook-store';
import { RedisWebhookStore } from '../src/webhooks/redis-webhook-store';
import { webhookStoreContract } from './webhook-store.contract';
import { useRedis, useRedisCluster } from './support/redis';

const KEPT = 5;
const redis = useRedis();

webhookStoreContract('MemoryWebhookStore', async () => new MemoryWebhookStore(KEPT));

webhookStoreContract('RedisWebhookStore', async () => {
  await redis.server.flushAll();
  return new RedisWebhookStore(await redis.connection(), { deliveriesKept: KEPT });
});

describe('on a Redis Cluster', () => {
  const cluster = useRedisCluster();
  webhookStoreContract('RedisWebhookStore on Redis Cluster', async () => new RedisWebhookStore(await cluster.emptyConnection(), { deliveriesKept: KEPT }));
});
