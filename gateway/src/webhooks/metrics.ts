import { Counter, Gauge, type Registry } from 'prom-client';
import type { DeliveryOutcome } from './deliveries';

/**
 * The webhooks' metrics, for the alert rules: `webhook_deliveries_pending` (deliveries waiting for
 * their first or next attempt, in the whole queue: with Redis, every replica reports the same
 * number) and `webhook_deliveries_total{outcome}` (attempts of this process: `delivered`,
 * `retried` (failed, to be tried again), `failed` (the last attempt failed)).
 */
export function registerWebhookMetrics(registry: Registry, stats: () => Promise<{ waiting: number; delayed: number }>): (outcome: DeliveryOutcome) => void {
  new Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Webhook deliveries waiting for their first or next attempt (the whole queue: with Redis, shared by every replica).',
    registers: [registry],
    // Every worker reads the same queue: the sum would count it several times.
    aggregator: 'max',
    async collect() {
      const { waiting, delayed } = await stats().catch(() => ({ waiting: 0, delayed: 0 }));
      this.set(waiting + delayed);
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
