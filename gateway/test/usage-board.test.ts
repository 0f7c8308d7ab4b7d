import { TestRedisCluster } from '../../test/helpers/redis-cluster';
import { connectCluster } from '../src/redis';
import { RedisUsageBoard } from '../src/usage/redis-usage-board';
import { LocalUsageBoard } from '../src/usage/usage-board';
import { usageBoardContract } from './usage-board.contract';
import { useRedis } from './support/redis';

const redis = useRedis();
const key = (name: string) => `{gw}:${name}`;
/** A long interval: the contract flushes when it reads. */
const FLUSH_MS = 60_000;

usageBoardContract('LocalUsageBoard', async () => new LocalUsageBoard());

usageBoardContract('RedisUsageBoard', async () => {
  await redis.server.flushAll();
  return new RedisUsageBoard({ redis: await redis.connection(), key, flushIntervalMs: FLUSH_MS });
});

describe('on a Redis Cluster', () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await TestRedisCluster.start();
  }, 30_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  usageBoardContract('RedisUsageBoard on Redis Cluster', async () => {
    await cluster.flushAll();
    return new RedisUsageBoard({ redis: redis.closeAfter(await connectCluster(cluster.addresses)), key, flushIntervalMs: FLUSH_MS });
  });
});
