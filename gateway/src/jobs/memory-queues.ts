import { randomUUID } from 'node:crypto';
import { DEFAULT_CONCURRENCY, ENDED_JOB_IDS_KEPT_MS, type JobQueue, type JobQueues, type QueueOptions, type QueueStats } from './types';

interface MemoryJob<T> {
  id: string;
  data: T;
  /** Attempts made so far. */
  attempts: number;
  state: 'waiting' | 'delayed' | 'active' | 'done' | 'failed';
  endedAt?: number;
  timer?: NodeJS.Timeout;
}

/** Ended jobs remembered at most (for deduplication), per queue: the oldest are forgotten first. */
const ENDED_JOBS_KEPT = 10_000;

/**
 * The embedded default: jobs in this process's memory, retried on timers. Nothing survives a
 * restart (a pending email is lost with the process); with one process there is nobody to share
 * the work with, so "once" is this process's word.
 */
export class MemoryJobQueue<T> implements JobQueue<T> {
  private readonly jobs = new Map<string, MemoryJob<T>>();
  private readonly ready: MemoryJob<T>[] = [];
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: QueueOptions<T>) {}

  add(data: T, { jobId }: { jobId?: string } = {}): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the job queue is closed'));
    this.forgetOldJobs();
    const id = jobId ?? randomUUID();
    if (this.jobs.has(id)) return Promise.resolve();
    const job: MemoryJob<T> = { id, data, attempts: 0, state: 'waiting' };
    this.jobs.set(id, job);
    this.ready.push(job);
    // After the caller's turn: adding never runs the handler inside the caller's work.
    setImmediate(() => this.pump());
    return Promise.resolve();
  }

  stats(): Promise<QueueStats> {
    const stats = { waiting: 0, delayed: 0, failed: 0 };
    for (const job of this.jobs.values()) {
      if (job.state === 'waiting') stats.waiting += 1;
      if (job.state === 'delayed') stats.delayed += 1;
      if (job.state === 'failed') stats.failed += 1;
    }
    return Promise.resolve(stats);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.jobs.values()) clearTimeout(job.timer);
    await Promise.all(this.running);
  }

  private pump(): void {
    const concurrency = this.options.concurrency ?? DEFAULT_CONCURRENCY;
    while (!this.closed && this.running.size < concurrency && this.ready.length > 0) {
      const job = this.ready.shift() as MemoryJob<T>;
      const run = this.run(job).finally(() => {
        this.running.delete(run);
        this.pump();
      });
      this.running.add(run);
    }
  }

  private async run(job: MemoryJob<T>): Promise<void> {
    job.state = 'active';
    job.attempts += 1;
    const delays = this.options.retryDelaysMs;
    const final = job.attempts > delays.length;
    try {
      await this.options.handle(job.data, { number: job.attempts, final });
      this.end(job, 'done');
    } catch {
      if (final) return this.end(job, 'failed');
      job.state = 'delayed';
      job.timer = setTimeout(() => {
        job.state = 'waiting';
        this.ready.push(job);
        this.pump();
      }, delays[job.attempts - 1]);
      job.timer.unref();
    }
  }

  private end(job: MemoryJob<T>, state: 'done' | 'failed'): void {
    job.state = state;
    job.endedAt = Date.now();
  }

  /** Ended jobs older than a day, or beyond the most kept, are forgotten (Map order is insertion order). */
  private forgetOldJobs(): void {
    let ended = 0;
    for (const job of this.jobs.values()) if (job.endedAt !== undefined) ended += 1;
    const now = Date.now();
    for (const [id, job] of this.jobs) {
      if (job.endedAt === undefined) continue;
      if (ended <= ENDED_JOBS_KEPT && now - job.endedAt < ENDED_JOB_IDS_KEPT_MS) break;
      this.jobs.delete(id);
      ended -= 1;
    }
  }
}

export class MemoryJobQueues implements JobQueues {
  readonly kind = 'in-process' as const;
  private readonly queues = new Map<string, MemoryJobQueue<unknown>>();

  queue<T>(name: string, options: QueueOptions<T>): JobQueue<T> {
    if (this.queues.has(name)) throw new Error(`the job queue "${name}" exists already`);
    const queue = new MemoryJobQueue(options);
    this.queues.set(name, queue as MemoryJobQueue<unknown>);
    return queue;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}
