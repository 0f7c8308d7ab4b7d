import { Counter, Gauge, type Registry } from 'prom-client';
import { withDeadline } from '../store-errors';
import type { DeliveryOutcome } from './deliveries';

/** How long a scrape waits for the queue's counts. */
const STATS_DEADLINE_MS = 500;

/**
 * The webhooks' metrics, for the alert rules: `webhook_deliveries_pending` (deliveries waiting for
 * their first or next attempt, in the whole queue: with Redis, every replica reports the same
 * number) and `webhook_deliveries_total{outcome}` (attempts of this process: `delivered`,
 * `retried` (failed, to be tried again), `failed` (the last attempt failed)).
 */
export function registerWebhookMetrics(registry: Registry, stats: () => Promise<{ waiting: number; delayed: number }>): (outcome: DeliveryOutcome) => void {
  let lastPending = 0;
  new Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Webhook deliveries waiting for their first or next attempt (the whole queue: with Redis, shared by every replica).',
    registers: [registry],
    // Every worker reads the same queue: the sum would count it several times.
    aggregator: 'max',
    async collect() {
      // A scrape never waits on Redis: the queue's connection waits out an outage (BullMQ's), so
      // its counts are bounded here and the last known value is served meanwhile.
      const counts = await withDeadline(stats(), STATS_DEADLINE_MS, 'webhook queue counts').catch(() => undefined);
      if (counts) lastPending = counts.waiting + counts.delayed;
      this.set(lastPending);
    },
  });
  const attempts = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts of this process, by outcome: delivered (a 2xx), retried (failed, tried again later), failed (the last attempt failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['delivered', 'retried', 'failed'] as const) attempts.labels(outcome).inc(0);
  return (outcome) => attempts.labels(outcome).inc();
}
