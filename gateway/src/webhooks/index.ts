import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { AuditLog } from '../audit/audit-log';
import type { Claims } from '../events/claims';
import type { Resolve } from './address-policy';
import { WebhookDeliveries, type DeliveriesOptions } from './deliveries';
import { disabledNotice, type OwnerNotice } from './disabled-notice';
import { registerWebhookMetrics } from './metrics';
import type { EventBus } from '../events/event-bus';
import type { JobQueues } from '../jobs';
import type { WebhookStore } from './store';
import { WebhookService } from './webhook-service';

export interface WebhooksDeps {
  config: { webhookAllowPrivate: boolean; webhookRetryDelaysMs: readonly number[] };
  /** Endpoints and deliveries (in process or in Redis: `backends/`). */
  store: WebhookStore;
  jobs: Pick<JobQueues, 'queue'>;
  events: Pick<EventBus, 'subscribe'>;
  audit: AuditLog;
  requireAccount(accountId: string): Promise<unknown>;
  logger: Logger;
  registry?: Registry;
  /**
   * Tells an account's owner something by email, once per `jobId` (`AccountMail.toOwner`);
   * absent, a disabled endpoint is only logged.
   */
  notifyOwner?: (accountId: string, notice: OwnerNotice, jobId: string) => Promise<unknown>;
  resolve?: Resolve;
}

export interface Webhooks {
  readonly service: WebhookService;
  readonly deliveries: WebhookDeliveries;
  /** Once-only claims across replicas, kept in the webhook store (for the key events' detectors). */
  readonly claims: Claims;
  /** Stops hearing events (the queue is closed with the gateway's other queues). */
  close(): void;
}

/** The webhooks, put together: the store beside the gateway's others, the deliveries on the job queue, every domain event fanned out. */
export function createWebhooks({ config, store, jobs, events, audit, requireAccount, logger, registry, notifyOwner, resolve }: WebhooksDeps): Webhooks {
  let onOutcome: DeliveriesOptions['onOutcome'];
  const deliveries = new WebhookDeliveries({
    store,
    jobs,
    retryDelaysMs: config.webhookRetryDelaysMs,
    allowPrivate: config.webhookAllowPrivate,
    logger,
    onDisabled: notifyOwner && (async (endpoint) => void (await notifyOwner(endpoint.accountId, disabledNotice(endpoint), `webhook-disabled:${endpoint.id}`))),
    onOutcome: (outcome) => onOutcome?.(outcome),
    resolve,
  });
  if (registry) onOutcome = registerWebhookMetrics(registry, () => deliveries.stats());
  const service = new WebhookService({ store, deliveries, audit, requireAccount, allowPrivate: config.webhookAllowPrivate, logger, resolve });
  // Every event of every account: whichever port or replica it happened on, it reaches this one bus.
  const unsubscribe = events.subscribe((event) => deliveries.fanOut(event));
  if (config.webhookAllowPrivate) logger.warn('WEBHOOK_ALLOW_PRIVATE=true: webhook endpoints may be http:// and internal addresses; never set it in production');
  return { service, deliveries, claims: store, close: unsubscribe };
}
