import type { Account, AccountPosition } from './types';

/**
 * The vocabulary of account listing, shared by both stores so they order and match alike.
 *
 * Search is a case-insensitive substring match on the name or the email. Both sides are lower-cased
 * here, in JavaScript (full Unicode case mapping), and the store compares bytes: Redis's Lua only
 * knows ASCII case, so it must never do the lower-casing itself. The newline between the two fields
 * keeps a query from matching across them (a query cannot contain one).
 */
export function searchTextOf(account: Pick<Account, 'name' | 'email'>): string {
  return `${account.name}\n${account.email ?? ''}`.toLowerCase();
}

export function normaliseSearch(query: string): string {
  return query.trim().toLowerCase();
}

export function positionOf(account: Pick<Account, 'id' | 'createdAt'>): AccountPosition {
  const ms = Date.parse(account.createdAt);
  return { createdAtMs: Number.isFinite(ms) && ms > 0 ? ms : 0, id: account.id };
}

const ORDER_KEY_TIME_DIGITS = 15;
/** Where the id starts in an order key (0-based): after the time and its colon. Scripts that read ids out of order keys are given it. */
export const ORDER_KEY_ID_OFFSET = ORDER_KEY_TIME_DIGITS + 1;

/**
 * A position as one string whose byte order is the creation order: the time zero-padded to 15
 * digits (good past the year 30000), then the id. Redis keeps the indexes as sorted sets of these
 * (all scores 0, so ZRANGEBYLEX pages them, compared with memcmp whatever the server's locale).
 */
export function orderKeyOf(position: AccountPosition): string {
  return `${String(Math.max(0, Math.trunc(position.createdAtMs))).padStart(ORDER_KEY_TIME_DIGITS, '0')}:${position.id}`;
}

export function positionOfOrderKey(orderKey: string): AccountPosition {
  return { createdAtMs: Number(orderKey.slice(0, ORDER_KEY_TIME_DIGITS)), id: orderKey.slice(ORDER_KEY_ID_OFFSET) };
}
