/**
 * Domain events: what happened to an account, decided once by the use case (or the limiter) that
 * made it happen, then told to whoever listens (email, webhooks) through the `EventBus`.
 * The shapes of `data` are the ones webhook deliveries carry (CONTRACT.md "Webhooks"): never a key.
 */

export const QUOTA_EVENT_TYPES = ['quota.warning', 'quota.exhausted'] as const;
export const KEY_EVENT_TYPES = ['key.created', 'key.revoked', 'key.rolled', 'key.expiring', 'key.banned'] as const;
export type QuotaEventType = (typeof QUOTA_EVENT_TYPES)[number];
export type KeyEventType = (typeof KEY_EVENT_TYPES)[number];
export type DomainEventType = QuotaEventType | KeyEventType;

/** An account's day quota at the moment a threshold was crossed. */
export interface QuotaEventData {
  accountId: string;
  window: 'day';
  used: number;
  quota: number;
  /** When the UTC day (and so the window) resets, RFC 3339. */
  resetAt: string;
}

/** A key as its owner may see it in an event: never the key itself. */
export interface KeyEventData {
  accountId: string;
  keyId: string;
  name: string | null;
  access: string;
  /** RFC 3339, or null for a key that never expires. */
  expiresAt: string | null;
  /** The replacement's id, on `key.rolled`. */
  replacedBy?: string;
}

interface EventEnvelope<Type extends DomainEventType, Data> {
  /** `evt_` and random characters: unique, the same on every delivery attempt. */
  id: string;
  type: Type;
  /** Unix time in milliseconds. */
  at: number;
  accountId: string;
  data: Data;
}

export type QuotaEvent = EventEnvelope<QuotaEventType, QuotaEventData>;
export type KeyEvent = EventEnvelope<KeyEventType, KeyEventData>;
export type DomainEvent = QuotaEvent | KeyEvent;

export function isQuotaEvent(event: DomainEvent): event is QuotaEvent {
  return (QUOTA_EVENT_TYPES as readonly string[]).includes(event.type);
}
