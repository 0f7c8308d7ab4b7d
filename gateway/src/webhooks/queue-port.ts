import type { WebhookEvent } from './event-types';

/**
 * What the webhooks need of the gateway's job queues (`jobs/`) and event bus (`events/`), stated
 * narrowly so this module can be tested with the real ones and depends on nothing else of them.
 */
export interface Attempt {
  /** 1 for the first attempt. */
  number: number;
  final: boolean;
}

export interface DeliveryQueue<T> {
  add(data: T, options?: { jobId?: string }): Promise<void>;
  stats(): Promise<{ waiting: number; delayed: number; failed: number }>;
}

export interface QueueFactory {
  queue<T>(name: string, options: { handle(data: T, attempt: Attempt): Promise<void>; retryDelaysMs: readonly number[] }): DeliveryQueue<T>;
}

export interface EventSource {
  subscribe(listener: (event: WebhookEvent) => void | Promise<void>): () => void;
}
