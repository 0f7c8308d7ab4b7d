import { RedisUsageBoard } from '../src/usage/redis-usage-board';
import { LocalUsageBoard } from '../src/usage/usage-board';
import { usageBoardContract } from './usage-board.contract';
import { useRedis, useRedisCluster } from './support/redis';

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
  const cluster = useRedisCluster();
  usageBoardContract('RedisUsageBoard on Redis Cluster', async () => new RedisUsageBoard({ redis: await cluster.emptyConnection(), key, flushIntervalMs: FLUSH_MS }));
});
