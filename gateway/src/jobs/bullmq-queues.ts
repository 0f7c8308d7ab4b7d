import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import Redis, { Cluster } from 'ioredis';
import { DISCONNECT_TIMEOUT_MS, endConnection, type RedisTarget } from '../redis';
import { DEFAULT_CONCURRENCY, ENDED_JOB_IDS_KEPT_MS, type JobQueue, type JobQueues, type QueueOptions, type QueueStats } from './types';

/** Failed jobs are kept this long (for `stats` and for ops looking into Redis). */
const FAILED_JOBS_KEPT_SECONDS = 7 * 24 * 60 * 60;

/** The hash tags of the queues' keys start `{<prefix>:`; this build's prefix. */
const DEFAULT_PREFIX = 'animal-store';

/**
 * Whether a Redis client of that name (`CLIENT LIST`) is one of the job queues' connections: the
 * shared one (`<prefix>:jobs`) or a worker's blocking one, which BullMQ names after its queue's
 * prefix (`{<prefix>:email}:<queue name in base64>`). Their commands (a worker's polls, BullMQ's
 * stalled-job checks) run on BullMQ's timers, whatever the traffic: the tests and the bench that
 * count what a request costs Redis leave them out.
 */
export function isJobQueueConnection(name: string, prefix = DEFAULT_PREFIX): boolean {
  return name === `${prefix}:jobs` || name.startsWith(`{${prefix}:`);
}

/**
 * BullMQ's own connection: unlike the request path's (`redis.ts`), it waits through outages (an
 * offline queue, no per-command retry limit, as BullMQ's workers require), since nothing waits on
 * it but background work.
 */
function connectionFor(target: RedisTarget, prefix: string): Redis | Cluster {
  const options = { connectionName: `${prefix}:jobs`, maxRetriesPerRequest: null, enableOfflineQueue: true, disconnectTimeout: DISCONNECT_TIMEOUT_MS } as const;
  const client = 'url' in target ? new Redis(target.url, options) : new Cluster(target.clusterNodes.map((node) => ({ ...node })), { redisOptions: options });
  client.on('error', () => undefined); // ioredis reconnects by itself; BullMQ reports what it cannot do
  return client;
}

/**
 * A queue on BullMQ: its jobs in Redis under `{<prefix>:<name>}` (one hash tag, so on a Cluster every
 * key of the queue is in one slot, as BullMQ's scripts need), a worker in every replica. BullMQ's
 * locks run each job in one worker at a time, and its stalled-job check gives the job of a replica
 * that died to another.
 */
class BullJobQueue<T> implements JobQueue<T> {
  private readonly queue: Queue;
  private readonly worker: Worker;

  constructor(connection: Redis | Cluster, prefix: string, name: string, options: QueueOptions<T>, onError: (error: unknown) => void) {
    const delays = options.retryDelaysMs;
    const attempts = delays.length + 1;
    const common = { connection: connection as unknown as ConnectionOptions, prefix: `{${prefix}:${name}}` };
    this.queue = new Queue(name, {
      ...common,
      defaultJobOptions: {
        attempts,
        backoff: { type: 'schedule' },
        removeOnComplete: { age: ENDED_JOB_IDS_KEPT_MS / 1000 },
        removeOnFail: { age: FAILED_JOBS_KEPT_SECONDS },
      },
    });
    this.queue.on('error', onError);
    this.worker = new Worker(
      name,
      async (job) => {
        // attemptsMade counts the attempts that ended (failed) before this one.
        const number = job.attemptsMade + 1;
        await options.handle(job.data as T, { number, final: number >= attempts });
      },
      {
        ...common,
        concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
        // The n-th retry waits the n-th delay of the schedule.
        settings: { backoffStrategy: (attemptsMade: number) => delays[Math.min(attemptsMade, delays.length) - 1] ?? 0 },
      },
    );
    this.worker.on('error', onError);
  }

  async add(data: T, { jobId }: { jobId?: string } = {}): Promise<void> {
    // BullMQ ignores an add whose jobId exists (waiting, delayed, active, completed or failed).
    await this.queue.add(this.queue.name, data, jobId ? { jobId: bullJobId(jobId) } : {});
  }

  async stats(): Promise<QueueStats> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'failed');
    return { waiting: counts.waiting ?? 0, delayed: counts.delayed ?? 0, failed: counts.failed ?? 0 };
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.queue.close();
  }

  /** Drops the connections without waiting for Redis (a stop while Redis is down). */
  disconnect(): void {
    this.worker.disconnect().catch(() => undefined);
    this.queue.disconnect().catch(() => undefined);
  }
}

/**
 * How long a stop waits for the queues to close. With Redis unreachable, BullMQ's close and QUIT
 * wait for a connection that is not coming (the queues' connection waits out outages): past this,
 * the connections are dropped, so a stop stays within its 10 s. A job running then is left to
 * BullMQ's stalled-job recovery, as if the process had been killed.
 */
const CLOSE_WAIT_MS = 3_000;

/** BullMQ refuses `:` in a job id (its key separator): escaped, reversibly, so distinct ids stay distinct. */
function bullJobId(jobId: string): string {
  return jobId.replace(/%/g, '%25').replace(/:/g, '%3A');
}

export class BullJobQueues implements JobQueues {
  readonly kind = 'redis' as const;
  /** Opened with the first queue: a gateway with no queue opens no connection for them. */
  private connection: Redis | Cluster | undefined;
  private readonly queues = new Map<string, BullJobQueue<unknown>>();

  /** `prefix` starts each queue's hash tag: `{animal-store:email}`. */
  constructor(
    private readonly target: RedisTarget,
    private readonly onError: (error: unknown) => void,
    private readonly prefix = DEFAULT_PREFIX,
  ) {}

  queue<T>(name: string, options: QueueOptions<T>): JobQueue<T> {
    if (this.queues.has(name)) throw new Error(`the job queue "${name}" exists already`);
    this.connection ??= connectionFor(this.target, this.prefix);
    const queue = new BullJobQueue(this.connection, this.prefix, name, options, this.onError);
    this.queues.set(name, queue as BullJobQueue<unknown>);
    return queue;
  }

  async close(): Promise<void> {
    const connection = this.connection;
    const queues = [...this.queues.values()];
    const closed = (async () => {
      await Promise.all(queues.map((queue) => queue.close()));
      if (connection) await endConnection(connection);
      return true;
    })();
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_WAIT_MS)));
    const done = await Promise.race([closed, gaveUp]);
    clearTimeout(timer);
    if (done) return;
    // Not awaited: BullMQ's disconnect waits for its connections' end, which an outage delays too.
    for (const queue of queues) queue.disconnect();
    connection?.disconnect();
  }
}
