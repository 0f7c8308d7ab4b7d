/**
 * Durable work off the request path (emails, webhook deliveries): one interface, two
 * implementations chosen once from the store kind (ADR 0026): BullMQ on Redis or Redis Cluster,
 * timers in process for the embedded default.
 */

/** Which attempt a handler is running: `final` on the last one, so it can record the outcome. */
export interface Attempt {
  /** 1 for the first attempt. */
  number: number;
  final: boolean;
}

export interface QueueOptions<T> {
  /** Does the work; throwing means "try again after the next delay" (or fail, after the last). */
  handle(data: T, attempt: Attempt): Promise<void>;
  /** The delays before each retry: `retryDelaysMs.length + 1` attempts in all. */
  retryDelaysMs: readonly number[];
  /** How many jobs of this queue run at once in this process (default 4). */
  concurrency?: number;
}

export interface JobQueue<T> {
  /**
   * Queues a job. With a `jobId` already queued, running, done or failed (within a day), nothing
   * is added: the same job added by several replicas runs once.
   */
  add(data: T, options?: { jobId?: string }): Promise<void>;
  stats(): Promise<QueueStats>;
  /** Stops taking jobs and waits for the running ones. */
  close(): Promise<void>;
}

export interface QueueStats {
  waiting: number;
  delayed: number;
  failed: number;
}

/** Makes the process's queues, each name once; `close` closes them all. */
export interface JobQueues {
  /** 'redis' or 'in-process': whether a pending job survives a restart. */
  readonly kind: 'redis' | 'in-process';
  queue<T>(name: string, options: QueueOptions<T>): JobQueue<T>;
  close(): Promise<void>;
}

/** How long the id of a job that ended is remembered, for `add`'s deduplication. */
export const ENDED_JOB_IDS_KEPT_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_CONCURRENCY = 4;
