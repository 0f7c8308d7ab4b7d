import { TestRedisCluster } from '../../test/helpers/redis-cluster';
import { AttemptLimits } from '../src/portal/attempt-limits';
import { portalRedisKeys } from '../src/portal/redis-store';
import { connectCluster } from '../src/redis';
import { attemptLimitsContract, CONTRACT_POLICIES as policies } from './attempt-limits.contract';
import { useRedis } from './support/redis';

const redis = useRedis();
const keyPrefix = (kind: string) => portalRedisKeys('{gw}:').attempts(kind);

attemptLimitsContract('in process', async () => new AttemptLimits({ keyPrefix, policies }));

attemptLimitsContract('on Redis', async () => {
  await redis.server.flushAll();
  return new AttemptLimits({ redis: await redis.connection(2_000), keyPrefix, policies });
});

describe('on a Redis Cluster', () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await TestRedisCluster.start();
  }, 30_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  attemptLimitsContract('on Redis Cluster', async () => {
    await cluster.flushAll();
    return new AttemptLimits({ redis: redis.closeAfter(await connectCluster(cluster.addresses)), keyPrefix, policies });
  });
});
