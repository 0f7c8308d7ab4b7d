export type { Attempt, JobQueue, JobQueues, QueueOptions, QueueStats } from './types';
// The implementation is chosen with the other stores, in `backends/` (BullMQ on Redis, timers in process).
