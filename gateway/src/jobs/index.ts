import type { RedisTarget } from '../redis';
import { BullJobQueues } from './bullmq-queues';
import { MemoryJobQueues } from './memory-queues';
import type { JobQueues } from './types';

export type { Attempt, JobQueue, JobQueues, QueueOptions, QueueStats } from './types';

/** The process's queues: on BullMQ with Redis (or a Cluster), in process without. */
export function createJobQueues(target: RedisTarget | undefined, onError: (error: unknown) => void, prefix?: string): JobQueues {
  return target ? new BullJobQueues(target, onError, prefix) : new MemoryJobQueues();
}
