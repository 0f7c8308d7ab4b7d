import { BullJobQueues, isJobQueueConnection } from '../src/jobs/bullmq-queues';
import { MemoryJobQueues } from '../src/jobs/memory-queues';
import { CONNECTION_NAMES } from '../src/redis';
import { clientNamesOf } from '../../tools/redis-monitor';
import { jobQueueContract } from './job-queue.contract';
import { useRedis, useRedisCluster } from './support/redis';

/** The job queues' contract in process, on a real Redis and on a real three-master Redis Cluster. */
const redis = useRedis();

jobQueueContract('MemoryJobQueues', async () => new MemoryJobQueues(), { shared: false });

jobQueueContract('BullJobQueues on Redis', async () => new BullJobQueues({ url: redis.url }, () => undefined), { shared: true });

describe('BullJobQueues specifics', () => {
  it("when a queue holds jobs, then every Redis key of it carries the queue's hash tag", async () => {
    const jobs = new BullJobQueues({ url: redis.url }, () => undefined, 'tagged');
    try {
      const queue = jobs.queue<string>('email', { retryDelaysMs: [], handle: async () => undefined });
      await queue.add('x', { jobId: 'one:with:colons' });
      const keys = await redis.server.client.keys('*tagged*');
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((key) => key.startsWith('{tagged:email}:'))).toBe(true);
    } finally {
      await jobs.close();
    }
  });

  it('when a queue runs, then every connection it opened is named as a job queue\'s, and the request path\'s names are not', async () => {
    const clients = async () => clientNamesOf(String(await redis.server.client.client('LIST')));
    const before = await clients();
    const jobs = new BullJobQueues({ url: redis.url }, () => undefined);
    try {
      const queue = jobs.queue<string>('email', { retryDelaysMs: [], handle: async () => undefined });
      await queue.add('x');
      // The worker's blocking connection opens on its own time.
      let opened: string[] = [];
      for (const deadline = Date.now() + 10_000; Date.now() < deadline && opened.length < 2; await new Promise((resolve) => setTimeout(resolve, 50))) {
        opened = [...(await clients())].filter(([address]) => !before.has(address)).map(([, name]) => name);
      }
      expect(opened.length).toBeGreaterThanOrEqual(2);
      expect(opened.filter((name) => !isJobQueueConnection(name))).toEqual([]);
      expect([CONNECTION_NAMES.requests, CONNECTION_NAMES.changes, ''].map((name) => isJobQueueConnection(name))).toEqual([false, false, false]);
    } finally {
      await jobs.close();
    }
  });
});

describe('on Redis Cluster', () => {
  // Each queue's keys share its hash tag's slot: BullMQ's scripts would fail with CROSSSLOT otherwise.
  const cluster = useRedisCluster();
  jobQueueContract('BullJobQueues on Redis Cluster', async () => new BullJobQueues({ clusterNodes: cluster.cluster.addresses }, () => undefined), { shared: true });
});
