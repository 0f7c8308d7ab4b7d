import { KEY_EVENT_TYPES, QUOTA_EVENT_TYPES } from '../events/types';

/**
 * What an endpoint can subscribe to: the domain events an account's own systems care about
 * (quota thresholds, key changes) and `webhook.test`, which exists only here.
 */
export const WEBHOOK_EVENT_TYPES = [...QUOTA_EVENT_TYPES, ...KEY_EVENT_TYPES, 'webhook.test'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** One thing that happened to an account, as every endpoint subscribed to its type receives it. */
export interface WebhookEvent {
  /** Unique (`evt_…`): the `webhook-id` of every attempt to deliver it. */
  id: string;
  type: WebhookEventType;
  /** When it happened (ms since the epoch). */
  at: number;
  accountId: string;
  /** The contract's payload for the type; never a key. */
  data: object;
}

/** The body every endpoint receives: `{type, timestamp, data}` (the same bytes on every attempt). */
export function deliveryBody(event: Pick<WebhookEvent, 'type' | 'at' | 'data'>): string {
  return JSON.stringify({ type: event.type, timestamp: new Date(event.at).toISOString(), data: event.data });
}
