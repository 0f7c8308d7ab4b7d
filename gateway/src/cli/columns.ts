import { auditChange, formatTime, shareOf, type Column } from './table';

/** How each listing of the admin API shows as a table. */

export const ACCOUNT_COLUMNS: Column[] = [
  { title: 'ID', value: (row) => row.id },
  { title: 'NAME', value: (row) => row.name },
  { title: 'EMAIL', value: (row) => row.email ?? '' },
  { title: 'PLAN', value: (row) => row.plan },
  { title: 'PER MINUTE', value: (row) => row.perMinute, number: true },
  { title: 'PER DAY', value: (row) => row.perDay, number: true },
  { title: 'CREATED (UTC)', value: (row) => formatTime(row.createdAt) },
];

export const KEY_COLUMNS: Column[] = [
  { title: 'ID', value: (row) => row.id },
  { title: 'KEY', value: (row) => row.masked ?? '(not kept)' },
  { title: 'NAME', value: (row) => row.name ?? '' },
  { title: 'ACCESS', value: (row) => row.access ?? 'read-write' },
  { title: 'CREATED (UTC)', value: (row) => formatTime(row.createdAt) },
  { title: 'EXPIRES (UTC)', value: (row) => (row.expiresAt ? formatTime(row.expiresAt) : 'never') },
  { title: 'LAST USED (UTC)', value: (row) => (row.lastUsedAt ? formatTime(row.lastUsedAt) : 'never') },
  { title: 'STATE', value: (row) => keyState(row) },
];

/** `active`, `revoked …`, `expired`, `banned until …`, with `replaced by key_…` after a roll. */
function keyState(row: Record<string, unknown>): string {
  if (typeof row.revokedAt === 'string') return `revoked ${formatTime(row.revokedAt)}`;
  const expired = typeof row.expiresAt === 'string' && Date.parse(row.expiresAt) <= Date.now();
  const state = expired ? 'expired' : typeof row.bannedUntil === 'string' ? `banned until ${formatTime(row.bannedUntil)}` : 'active';
  return typeof row.replacedBy === 'string' ? `${state}, replaced by ${row.replacedBy}` : state;
}

export const USAGE_COLUMNS: Column[] = [
  { title: 'ACCOUNT', value: (row) => row.accountId },
  { title: 'NAME', value: (row) => row.name ?? '' },
  { title: 'PLAN', value: (row) => row.plan },
  { title: 'USED', value: (row) => row.used, number: true },
  { title: 'QUOTA', value: (row) => row.quota, number: true },
  { title: 'SHARE', value: (row) => shareOf(row.used, row.quota), number: true },
];

export const REFUSED_COLUMNS: Column[] = [
  { title: 'KEY', value: (row) => row.keyId },
  { title: 'ACCOUNT', value: (row) => row.accountId },
  { title: 'NAME', value: (row) => row.name ?? '' },
  { title: 'PLAN', value: (row) => row.plan },
  { title: 'REFUSED TODAY', value: (row) => row.refused, number: true },
];

export const AUDIT_COLUMNS: Column[] = [
  { title: 'WHEN (UTC)', value: (row) => formatTime(row.at) },
  { title: 'WHO', value: (row) => row.actor },
  { title: 'ACTION', value: (row) => row.action },
  { title: 'TARGET', value: (row) => row.target },
  { title: 'CHANGE', value: (row) => auditChange(row.before, row.after) },
];

export const WEBHOOK_COLUMNS: Column[] = [
  { title: 'ID', value: (row) => row.id },
  { title: 'URL', value: (row) => row.url },
  { title: 'EVENTS', value: (row) => (Array.isArray(row.events) ? row.events.join(',') : '') },
  { title: 'CREATED (UTC)', value: (row) => formatTime(row.createdAt) },
  { title: 'STATE', value: (row) => (typeof row.disabledAt === 'string' ? `disabled ${formatTime(row.disabledAt)}` : 'enabled') },
];

export const DELIVERY_COLUMNS: Column[] = [
  { title: 'EVENT', value: (row) => row.eventId },
  { title: 'TYPE', value: (row) => row.type },
  { title: 'STATUS', value: (row) => row.status },
  { title: 'ATTEMPTS', value: (row) => row.attempts, number: true },
  { title: 'LAST ANSWER', value: (row) => row.lastResponseStatus ?? '' },
  { title: 'NEXT ATTEMPT (UTC)', value: (row) => (row.nextAttemptAt ? formatTime(row.nextAttemptAt) : '') },
];
