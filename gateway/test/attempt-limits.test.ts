import { AttemptLimits } from '../src/portal/attempt-limits';
import { portalRedisKeys } from '../src/portal/redis-store';
import { attemptLimitsContract, CONTRACT_POLICIES as policies } from './attempt-limits.contract';
import { useRedis, useRedisCluster } from './support/redis';

const redis = useRedis();
const keyPrefix = (kind: string) => portalRedisKeys('{gw}:').attempts(kind);

attemptLimitsContract('in process', async () => new AttemptLimits({ keyPrefix, policies }));

attemptLimitsContract('on Redis', async () => {
  await redis.server.flushAll();
  return new AttemptLimits({ redis: await redis.connection(2_000), keyPrefix, policies });
});

describe('on a Redis Cluster', () => {
  const cluster = useRedisCluster();
  attemptLimitsContract('on Redis Cluster', async () => new AttemptLimits({ redis: await cluster.emptyConnection(), keyPrefix, policies }));
});
