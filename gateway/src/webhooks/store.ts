import type { WebhookEventType } from './event-types';

/** An account's endpoint, as listings show it (never with its secret). */
export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  /** The types it receives. */
  events: WebhookEventType[];
  /** RFC 3339. */
  createdAt: string;
  /** When it was disabled for failing every delivery for days (RFC 3339); null while it is enabled. */
  disabledAt: string | null;
}

/** The stored endpoint: with the secret every delivery is signed with, and since when all its attempts fail. */
export interface StoredEndpoint extends WebhookEndpoint {
  secret: string;
  /** ms: the first failed attempt since its last delivered one; null when the last attempt was delivered (or none was made). */
  failingSince: number | null;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event's delivery to one endpoint, as ops and the owner see it. */
export interface DeliveryRecord {
  eventId: string;
  type: WebhookEventType;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempts: number;
  /** The receiver's last HTTP status; null when no attempt got one (not yet made, refused, timed out). */
  lastResponseStatus: number | null;
  /** RFC 3339: when the next attempt is due; null once delivered or failed. */
  nextAttemptAt: string | null;
  /** ms: when the event was queued for this endpoint (the listing's order). */
  queuedAtMs: number;
}

/** Where a deliveries page ends: the next page starts after it (newest first). */
export interface DeliveryPosition {
  queuedAtMs: number;
  eventId: string;
}

export interface DeliveryPage {
  deliveries: DeliveryRecord[];
  next: DeliveryPosition | null;
}

/** Deliveries kept per endpoint: older ones are dropped as new ones come (the listing is "recent deliveries"). */
export const DELIVERIES_KEPT = 100;

/**
 * The webhooks' state: endpoints per account and each endpoint's recent deliveries. In process by
 * default, in Redis (one hash tag per endpoint) when the gateway has one.
 */
export interface WebhookStore {
  /** Adds the endpoint unless its account already has `maxPerAccount`: false then, and nothing is written. */
  addEndpoint(endpoint: StoredEndpoint, maxPerAccount: number): Promise<boolean>;
  /** The account's endpoints, oldest first. */
  listEndpoints(accountId: string): Promise<StoredEndpoint[]>;
  getEndpoint(id: string): Promise<StoredEndpoint | null>;
  /** Removes it with its deliveries; the removed endpoint, or null when there was none. */
  removeEndpoint(id: string): Promise<StoredEndpoint | null>;
  /** A failed attempt: sets `failingSince` to `atMs` unless already set; the value it has now (null when the endpoint is gone). */
  noteFailure(id: string, atMs: number): Promise<number | null>;
  /** A delivered attempt: clears `failingSince`. */
  noteSuccess(id: string): Promise<void>;
  /** Disables it at `at` (RFC 3339): true only for the call that disabled it (so its owner is told once). */
  disable(id: string, at: string): Promise<boolean>;
  /** Writes the delivery's record as it is now (replacing the one of the same event). */
  saveDelivery(endpointId: string, record: DeliveryRecord): Promise<void>;
  /** Writes the record only if the endpoint has none for that event: false when it had one. */
  startDelivery(endpointId: string, record: DeliveryRecord): Promise<boolean>;
  getDelivery(endpointId: string, eventId: string): Promise<DeliveryRecord | null>;
  /** Newest first, `limit` at most, after `after`. */
  listDeliveries(endpointId: string, query: { limit: number; after?: DeliveryPosition }): Promise<DeliveryPage>;
  /** True for the first caller of `name` within `ttlMs` (whatever the replica): a periodic job's once-only. */
  claimOnce(name: string, ttlMs: number): Promise<boolean>;
}

/** Newest first: later queued, then greater event id. */
export function isAfter(record: DeliveryPosition, position: DeliveryPosition): boolean {
  return record.queuedAtMs < position.queuedAtMs || (record.queuedAtMs === position.queuedAtMs && record.eventId < position.eventId);
}

export function newestFirst(a: DeliveryPosition, b: DeliveryPosition): number {
  return b.queuedAtMs - a.queuedAtMs || (a.eventId < b.eventId ? 1 : a.eventId > b.eventId ? -1 : 0);
}
