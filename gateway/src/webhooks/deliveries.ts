import type { Logger } from 'pino';
import { deliveryBody, type WebhookEvent, type WebhookEventType } from './event-types';
import type { Attempt, JobQueue, JobQueues } from '../jobs';
import { isDelivered, sendDelivery, type AttemptResult } from './sender';
import type { Resolve } from './address-policy';
import { signatureHeaders } from './signature';
import type { DeliveryRecord, StoredEndpoint, WebhookStore } from './store';

/** A fan-out that could not read the account's endpoints (the store down) is tried again after these. */
const FAN_OUT_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000, 600_000];

/** An endpoint whose every attempt has failed for this long is disabled and its owner told. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;

/** One event for one endpoint: what a queued job carries (the body is fixed when the event happens). */
export interface DeliveryJob {
  endpointId: string;
  eventId: string;
  type: WebhookEventType;
  body: string;
}

export type DeliveryOutcome = 'delivered' | 'retried' | 'failed';

export interface DeliveriesOptions {
  store: WebhookStore;
  jobs: Pick<JobQueues, 'queue'>;
  retryDelaysMs: readonly number[];
  /** `WEBHOOK_ALLOW_PRIVATE`: lifts the SSRF rules (development and tests). */
  allowPrivate: boolean;
  logger: Logger;
  /** Tells the endpoint's owner it was disabled (by email); a failure is logged, never thrown. */
  onDisabled?: (endpoint: StoredEndpoint) => Promise<void>;
  /** Each attempt's outcome, for the metrics. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
  now?: () => number;
  timeoutMs?: number;
  resolve?: Resolve;
}

/**
 * Fans each event out to the account's endpoints that want it, and delivers each through the job
 * queue: one job per event and endpoint (its id says which, so a second add anywhere is a no-op),
 * retried on the schedule, its record kept up to date for the deliveries listing. At least once: a
 * receiver tells a repeat by `webhook-id`.
 */
export class WebhookDeliveries {
  private readonly queue: JobQueue<DeliveryJob>;
  private readonly fanOuts: JobQueue<WebhookEvent>;
  private readonly now: () => number;

  constructor(private readonly options: DeliveriesOptions) {
    this.now = options.now ?? Date.now;
    this.queue = options.jobs.queue<DeliveryJob>('webhooks', { handle: (job, attempt) => this.attempt(job, attempt), retryDelaysMs: options.retryDelaysMs });
    this.fanOuts = options.jobs.queue<WebhookEvent>('webhook-events', { handle: (event) => this.toEndpoints(event), retryDelaysMs: FAN_OUT_RETRY_DELAYS_MS });
  }

  /**
   * Hands the event to its account's endpoints through a job of its own (id: the event's), so that
   * a store that cannot be read at this moment delays the fan-out instead of losing the event.
   */
  async fanOut(event: WebhookEvent): Promise<void> {
    await this.fanOuts.add(event, { jobId: event.id });
  }

  /** Queues the event for every enabled endpoint of its account subscribed to its type. */
  async toEndpoints(event: WebhookEvent): Promise<void> {
    const endpoints = await this.options.store.listEndpoints(event.accountId);
    await Promise.all(endpoints.filter((endpoint) => endpoint.disabledAt === null && endpoint.events.includes(event.type)).map((endpoint) => this.enqueue(endpoint, event)));
  }

  /** Queues the event for this endpoint (once: the same event and endpoint again changes nothing). */
  async enqueue(endpoint: StoredEndpoint, event: WebhookEvent): Promise<void> {
    const now = this.now();
    const record: DeliveryRecord = { eventId: event.id, type: event.type, status: 'pending', attempts: 0, lastResponseStatus: null, nextAttemptAt: new Date(now).toISOString(), queuedAtMs: now };
    await this.options.store.startDelivery(endpoint.id, record);
    await this.queue.add({ endpointId: endpoint.id, eventId: event.id, type: event.type, body: deliveryBody(event) }, { jobId: `${event.id}.${endpoint.id}` });
  }

  /** Waiting and delayed deliveries, and those that failed for good (still kept by the queue). */
  stats(): Promise<{ waiting: number; delayed: number; failed: number }> {
    return this.queue.stats();
  }

  private async attempt(job: DeliveryJob, attempt: Attempt): Promise<void> {
    const { store } = this.options;
    const endpoint = await store.getEndpoint(job.endpointId);
    // Removed meanwhile: nothing to deliver to, nothing to record. Disabled: the rest is dropped.
    if (!endpoint) return;
    const previous = await store.getDelivery(endpoint.id, job.eventId);
    const queuedAtMs = previous?.queuedAtMs ?? this.now();
    if (endpoint.disabledAt !== null) {
      await store.saveDelivery(endpoint.id, { eventId: job.eventId, type: job.type, status: 'failed', attempts: previous?.attempts ?? 0, lastResponseStatus: previous?.lastResponseStatus ?? null, nextAttemptAt: null, queuedAtMs });
      return;
    }
    const sentAt = this.now();
    const headers = signatureHeaders(job.eventId, job.body, endpoint.secret, sentAt);
    const result = await sendDelivery(endpoint.url, job.body, headers, { allowPrivate: this.options.allowPrivate, timeoutMs: this.options.timeoutMs, resolve: this.options.resolve });
    const base = { eventId: job.eventId, type: job.type, attempts: attempt.number, lastResponseStatus: 'status' in result ? result.status : null, queuedAtMs };
    if (isDelivered(result)) {
      await store.saveDelivery(endpoint.id, { ...base, status: 'delivered', nextAttemptAt: null });
      await store.noteSuccess(endpoint.id);
      this.options.onOutcome?.('delivered');
      return;
    }
    const delay = this.options.retryDelaysMs[attempt.number - 1];
    const final = attempt.final || delay === undefined;
    await store.saveDelivery(endpoint.id, { ...base, status: final ? 'failed' : 'pending', nextAttemptAt: final ? null : new Date(this.now() + delay).toISOString() });
    this.options.onOutcome?.(final ? 'failed' : 'retried');
    await this.noteFailure(endpoint, sentAt);
    throw new DeliveryFailedError(endpoint.id, result);
  }

  private async noteFailure(endpoint: StoredEndpoint, atMs: number): Promise<void> {
    const since = await this.options.store.noteFailure(endpoint.id, atMs);
    if (since === null || atMs - since < DISABLE_AFTER_FAILING_MS) return;
    const disabledAt = new Date(atMs).toISOString();
    if (!(await this.options.store.disable(endpoint.id, disabledAt))) return;
    this.options.logger.warn({ webhookId: endpoint.id, accountId: endpoint.accountId }, 'webhook endpoint disabled: every delivery failed for 5 days');
    await this.options.onDisabled?.({ ...endpoint, disabledAt }).catch((err: unknown) => this.options.logger.error({ err, webhookId: endpoint.id }, 'could not tell the owner their webhook endpoint was disabled'));
  }
}

/** An attempt that did not deliver: thrown so the queue retries it (the message names no secret). */
export class DeliveryFailedError extends Error {
  constructor(endpointId: string, result: AttemptResult) {
    super(`webhook ${endpointId}: ${'status' in result ? `answered ${result.status}` : result.error}`);
    this.name = 'DeliveryFailedError';
  }
}
