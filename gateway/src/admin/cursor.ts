import { ACCOUNT_ID_PATTERN } from '../keys/api-key';
import type { AccountPosition } from '../accounts/types';
import { AUDIT_ENTRY_ID } from '../audit/audit-log';
import type { DeliveryPosition } from '../webhooks/store';

/**
 * The admin listings' page cursors: a tag and a position, base64url-encoded. Opaque to callers, who
 * take them from the `Link` header; decoding accepts only what encoding can produce, so anything
 * else is refused as a parameter the API did not hand out. They are not signed (the public API's
 * are): whoever holds an admin token may list every page anyway, so a forged position reveals nothing.
 */
const ACCOUNTS = /^a\.(\d{1,15})\.(acct_[0-9A-Za-z]{20})$/;
const AUDIT = /^e\.(\d{1,15}-\d{1,15})$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/;

function encode(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function decode(cursor: string): string | undefined {
  if (!BASE64URL.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // Only the canonical spelling: base64url's spare bits would otherwise let several cursors mean one.
  return encode(text) === cursor ? text : undefined;
}

export function accountsCursor(position: AccountPosition): string {
  return encode(`a.${position.createdAtMs}.${position.id}`);
}

export function parseAccountsCursor(cursor: string): AccountPosition | undefined {
  const match = ACCOUNTS.exec(decode(cursor) ?? '');
  if (!match || !ACCOUNT_ID_PATTERN.test(match[2]!)) return undefined;
  return { createdAtMs: Number(match[1]), id: match[2]! };
}

export function auditCursor(entryId: string): string {
  return encode(`e.${entryId}`);
}

export function parseAuditCursor(cursor: string): string | undefined {
  const match = AUDIT.exec(decode(cursor) ?? '');
  return match && AUDIT_ENTRY_ID.test(match[1]!) ? match[1] : undefined;
}

const DELIVERIES = /^d\.(\d{1,15})\.(evt_[0-9A-Za-z_-]{1,64})$/;

export function deliveriesCursor(position: DeliveryPosition): string {
  return encode(`d.${position.queuedAtMs}.${position.eventId}`);
}

export function parseDeliveriesCursor(cursor: string): DeliveryPosition | undefined {
  const match = DELIVERIES.exec(decode(cursor) ?? '');
  return match ? { queuedAtMs: Number(match[1]), eventId: match[2]! } : undefined;
}
