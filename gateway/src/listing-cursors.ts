import { ACCOUNT_ID_PATTERN, KEY_ID_PATTERN } from './keys/api-key';
import type { AccountPosition } from './accounts/types';
import type { KeyPosition } from './accounts/account-views';
import { AUDIT_ENTRY_ID } from './audit/audit-log';
import type { DeliveryPosition } from './webhooks/store';

/**
 * The page cursors of the listings both fronts serve (the admin API's listings, the portal's page of
 * keys): a tag and a position, base64url-encoded. Opaque to callers, who take them from the `Link`
 * header or the page; decoding accepts only what encoding can produce, so anything else is refused
 * as a parameter the API did not hand out. They are not signed (the public API's are): a forged
 * position only moves within what its holder may list anyway (every page with an admin token, the
 * session's own keys on the portal). Outside `admin/` and `portal/` since both read them.
 */
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

/** A place in a creation order (accounts', an account's keys'): a tag, the creation time and the id. */
interface CreationPosition {
  createdAtMs: number;
  id: string;
}

/** The cursor pair of one creation order: `tag` tells the listings apart, `idPattern` is its ids' shape. */
function creationOrderCursors(tag: string, idPattern: RegExp) {
  const shape = new RegExp(`^${tag}\\.(\\d{1,15})\\.([0-9A-Za-z_]{1,40})$`);
  return {
    encode: (position: CreationPosition): string => encode(`${tag}.${position.createdAtMs}.${position.id}`),
    parse: (cursor: string): CreationPosition | undefined => {
      const match = shape.exec(decode(cursor) ?? '');
      if (!match || !idPattern.test(match[2]!)) return undefined;
      return { createdAtMs: Number(match[1]), id: match[2]! };
    },
  };
}

const accounts = creationOrderCursors('a', ACCOUNT_ID_PATTERN);
export const accountsCursor: (position: AccountPosition) => string = accounts.encode;
export const parseAccountsCursor: (cursor: string) => AccountPosition | undefined = accounts.parse;

const keys = creationOrderCursors('k', KEY_ID_PATTERN);
export const keysCursor: (position: KeyPosition) => string = keys.encode;
export const parseKeysCursor: (cursor: string) => KeyPosition | undefined = keys.parse;

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
