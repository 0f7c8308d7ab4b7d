import { ApiError } from '../../../shared/src/errors';
import type { AuditLog, AuditValues, NewAuditEntry } from '../audit/audit-log';
import { randomBase62 } from '../keys/api-key';
import type { Logger } from 'pino';
import { refuseEndpointUrl, type Resolve } from './address-policy';
import type { WebhookDeliveries } from './deliveries';
import { WEBHOOK_EVENT_TYPES, type WebhookEvent } from './event-types';
import { newWebhookSecret } from './secret';
import { validateNewEndpoint, type NewEndpointInput } from './schemas';
import type { DeliveryPage, DeliveryPosition, StoredEndpoint, WebhookEndpoint, WebhookStore } from './store';

/** Endpoints one account may have. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10;
export const WEBHOOK_ID_PATTERN = /^wh_[0-9A-Za-z]{20}$/;

/** A new endpoint as its creator sees it, this once with its secret. */
export interface CreatedEndpoint extends WebhookEndpoint {
  secret: string;
}

export interface WebhookServiceOptions {
  store: WebhookStore;
  deliveries: WebhookDeliveries;
  audit: AuditLog;
  /** 404 not_found when there is no such account. */
  requireAccount(accountId: string): Promise<unknown>;
  allowPrivate: boolean;
  logger: Logger;
  now?: () => number;
  resolve?: Resolve;
}

/** Who asks: an operator (any account) or a portal account (only its own endpoints). */
export interface Caller {
  actor: string;
  /** Set for the portal: an endpoint of another account is "not found". */
  ownAccountId?: string;
}

/**
 * The webhook use cases, the one entry of the admin API, the CLI (through it), the console and the
 * portal: add (the secret shown once), list, remove, recent deliveries, send a test event. Every
 * change goes into the audit trail here, so no caller can make one without an entry.
 */
export class WebhookService {
  private readonly now: () => number;

  constructor(private readonly options: WebhookServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  async addEndpoint(accountId: string, input: NewEndpointInput, { actor }: Caller): Promise<CreatedEndpoint> {
    const { url, events = [...WEBHOOK_EVENT_TYPES] } = validateNewEndpoint(input);
    await this.options.requireAccount(accountId);
    const refusal = await refuseEndpointUrl(url, this.options.allowPrivate, this.options.resolve);
    if (refusal) throw new ApiError('invalid_body', refusal);
    const endpoint: StoredEndpoint = {
      id: `wh_${randomBase62(20)}`,
      accountId,
      url,
      events: [...events],
      secret: newWebhookSecret(),
      createdAt: new Date(this.now()).toISOString(),
      disabledAt: null,
      failingSince: null,
    };
    if (!(await this.options.store.addEndpoint(endpoint, MAX_ENDPOINTS_PER_ACCOUNT))) {
      throw new ApiError('invalid_body', `The account already has ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints, the most it may have: delete one first.`);
    }
    await this.record({ actor, action: 'webhook.added', target: endpoint.id, accountId, before: null, after: auditValues(endpoint) });
    return { ...viewOf(endpoint), secret: endpoint.secret };
  }

  async listEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    await this.options.requireAccount(accountId);
    return (await this.options.store.listEndpoints(accountId)).map(viewOf);
  }

  async removeEndpoint(webhookId: string, caller: Caller): Promise<void> {
    const endpoint = await this.requireEndpoint(webhookId, caller);
    if (!(await this.options.store.removeEndpoint(endpoint.id))) throw notFound(webhookId);
    await this.record({ actor: caller.actor, action: 'webhook.removed', target: endpoint.id, accountId: endpoint.accountId, before: auditValues(endpoint), after: null });
  }

  async listDeliveries(webhookId: string, query: { limit: number; after?: DeliveryPosition }, caller: Caller): Promise<DeliveryPage> {
    const endpoint = await this.requireEndpoint(webhookId, caller);
    return this.options.store.listDeliveries(endpoint.id, query);
  }

  /** Queues a `webhook.test` event for this endpoint alone; its id, to find it among the deliveries. */
  async sendTest(webhookId: string, caller: Caller): Promise<string> {
    const endpoint = await this.requireEndpoint(webhookId, caller);
    const event: WebhookEvent = {
      id: newWebhookEventId(),
      type: 'webhook.test',
      at: this.now(),
      accountId: endpoint.accountId,
      data: { accountId: endpoint.accountId, webhookId: endpoint.id },
    };
    await this.options.deliveries.enqueue(endpoint, event);
    return event.id;
  }

  private async requireEndpoint(webhookId: string, { ownAccountId }: Caller): Promise<StoredEndpoint> {
    const endpoint = WEBHOOK_ID_PATTERN.test(webhookId) ? await this.options.store.getEndpoint(webhookId) : null;
    if (!endpoint || (ownAccountId !== undefined && endpoint.accountId !== ownAccountId)) throw notFound(webhookId);
    return endpoint;
  }

  private async record(entry: Omit<NewAuditEntry, 'at'>): Promise<void> {
    const complete: NewAuditEntry = { at: new Date(this.now()).toISOString(), ...entry };
    try {
      await this.options.audit.record(complete);
    } catch (err) {
      this.options.logger.error({ err, audit: complete }, 'audit entry not recorded (the change itself was made)');
    }
  }
}

/** `evt_` and random characters, as the domain events' ids. */
export function newWebhookEventId(): string {
  return `evt_${randomBase62(22)}`;
}

function notFound(webhookId: string): ApiError {
  return new ApiError('not_found', `No webhook endpoint with id "${webhookId}".`);
}

export function viewOf({ id, accountId, url, events, createdAt, disabledAt }: StoredEndpoint): WebhookEndpoint {
  return { id, accountId, url, events: [...events], createdAt, disabledAt };
}

function auditValues(endpoint: StoredEndpoint): AuditValues {
  return { url: endpoint.url, events: endpoint.events.join(',') };
}
