import { MemoryCrossingMarks, RedisCrossingMarks } from '../src/events/crossing-marks';
import { crossingMarksContract } from './crossing-marks.contract';
import { useRedis, useRedisCluster } from './support/redis';

const redis = useRedis();
const key = (name: string) => `{gw}:${name}`;

crossingMarksContract('MemoryCrossingMarks', async () => new MemoryCrossingMarks(), { shared: false });

describe('on Redis', () => {
  beforeEach(async () => {
    await redis.server.flushAll();
  });

  crossingMarksContract('RedisCrossingMarks', async () => new RedisCrossingMarks(await redis.connection(), key), { shared: true });

  it('when a threshold is marked, then the mark is one key under the store prefix, expiring when the mark does', async () => {
    const client = await redis.connection();
    await new RedisCrossingMarks(client, key).markOnce('acct_1', 80, '2026-11-26', Date.now() + 60_000);
    expect(await client.keys('*')).toEqual(['{gw}:quota-crossed:2026-11-26:acct_1:80']);
    const ttl = await client.pttl('{gw}:quota-crossed:2026-11-26:acct_1:80');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});

describe('on a Redis Cluster', () => {
  const cluster = useRedisCluster();
  // Emptied before each test, not at each open: two replicas of one test share what they mark.
  beforeEach(() => cluster.cluster.flushAll());
  crossingMarksContract('RedisCrossingMarks on Redis Cluster', async () => new RedisCrossingMarks(await cluster.connection(), key), { shared: true });
});
