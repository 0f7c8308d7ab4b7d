import pino from 'pino';
import { RedisLimiter, withFallback } from '../src/limits';
import { connectCluster, type Cluster } from '../src/redis';
import { TestRedisCluster } from '../../test/helpers/redis-cluster';
import { limiterContract } from './limiter.contract';

/** The Limiter contract on a real three-master Redis Cluster: the Redis limiter, and the failover limiter the gateway builds on it. */
let cluster: TestRedisCluster;
const clients: Cluster[] = [];
const logger = pino({ level: 'silent' });
const COMMAND_TIMEOUT_MS = 2_000;

beforeAll(async () => {
  cluster = await TestRedisCluster.start();
}, 30_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  await cluster?.stop();
});

async function clusterClient(): Promise<Cluster> {
  const client = await connectCluster(cluster.addresses, 2_000);
  clients.push(client);
  return client;
}

limiterContract('RedisLimiter on Redis Cluster', {
  open: async (ban) => new RedisLimiter({ redis: await clusterClient(), ban, commandTimeoutMs: COMMAND_TIMEOUT_MS }),
  clockDrivesWindows: false,
});

limiterContract('FailoverLimiter on Redis Cluster', {
  open: async (ban) => withFallback(new RedisLimiter({ redis: await clusterClient(), ban, commandTimeoutMs: COMMAND_TIMEOUT_MS }), { logger, ban }),
  clockDrivesWindows: false,
});
