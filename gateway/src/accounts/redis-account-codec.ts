import { BUILT_IN_PLANS, KEY_ACCESS_LEVELS, PLAN_NAMES, type Account, type ApiKeyRecord, type ChangeEvent, type KeyAccess, type KeySetSeen, type Plan, type PlanName } from './types';

/**
 * How the Redis account store writes records as hash fields and change events as channel
 * messages, and reads them back: '' stands for null, optional key fields are written only when
 * set, and whatever comes back from Redis (written by any version, or anyone) is trusted no further
 * than these readers check.
 */

export function eventJson(event: ChangeEvent): string {
  return JSON.stringify(event);
}

/** HGETALL's reply inside a script is a flat field, value, field, value… list. */
export function fromPairs(pairs: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i]!] = pairs[i + 1]!;
  return fields;
}

const nullable = (value: number | null) => (value === null ? '' : String(value));
const fromNullable = (value: string | undefined) => (value === undefined || value === '' ? null : Number(value));

export function accountFields(account: Account): string[] {
  const { id, name, plan, perMinute, perDay, email, createdAt } = account;
  return ['id', id, 'name', name, 'plan', plan, 'perMinute', nullable(perMinute), 'perDay', nullable(perDay), 'email', email ?? '', 'createdAt', createdAt];
}

export function toAccount(fields: Record<string, string>): Account | null {
  if (!fields.id || !fields.plan) return null;
  return {
    id: fields.id,
    name: fields.name ?? '',
    plan: fields.plan as PlanName,
    perMinute: fromNullable(fields.perMinute),
    perDay: fromNullable(fields.perDay),
    email: fields.email ? fields.email : null,
    createdAt: fields.createdAt ?? '',
  };
}

/** The optional fields of a key record, written only when set (absent fields read as their defaults). */
const OPTIONAL_KEY_FIELDS = ['masked', 'name', 'access', 'expiresAt', 'replacedBy'] as const;

export function keyFields(key: ApiKeyRecord): string[] {
  const optional = OPTIONAL_KEY_FIELDS.flatMap((field) => (key[field] ? [field, key[field]] : []));
  return ['id', key.id, 'accountId', key.accountId, 'hash', key.hash, 'createdAt', key.createdAt, 'revokedAt', key.revokedAt ?? '', ...optional];
}

export function toKey(fields: Record<string, string>): ApiKeyRecord | null {
  if (!fields.id || !fields.hash || !fields.accountId) return null;
  return {
    id: fields.id,
    accountId: fields.accountId,
    hash: fields.hash,
    createdAt: fields.createdAt ?? '',
    revokedAt: fields.revokedAt ? fields.revokedAt : null,
    ...(fields.masked ? { masked: fields.masked } : {}),
    ...(fields.name ? { name: fields.name } : {}),
    // An access level this version does not know is read as the most restrictive one it does.
    ...(fields.access ? { access: (KEY_ACCESS_LEVELS as readonly string[]).includes(fields.access) ? (fields.access as KeyAccess) : 'read-only' } : {}),
    ...(fields.expiresAt ? { expiresAt: fields.expiresAt } : {}),
    ...(fields.replacedBy ? { replacedBy: fields.replacedBy } : {}),
  };
}

export function toPlan(name: PlanName, stored: string | undefined): Plan {
  const builtIn = BUILT_IN_PLANS.find((plan) => plan.name === name)!;
  if (stored === undefined) return { ...builtIn };
  try {
    const { perMinute, perDay } = JSON.parse(stored) as { perMinute?: unknown; perDay?: unknown };
    const numberOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
    return { name, perMinute: numberOrNull(perMinute), perDay: numberOrNull(perDay) };
  } catch {
    return { ...builtIn };
  }
}

/** Messages on the channel come from any replica, or anyone with access to Redis: trust nothing. */
export function parseChangeEvent(message: string): ChangeEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const event = value as Record<string, unknown>;
  switch (event.type) {
    case 'account':
    case 'account-created':
      return typeof event.accountId === 'string' ? { type: event.type, accountId: event.accountId } : null;
    case 'key':
    case 'key-added':
      return typeof event.keyId === 'string' && typeof event.hash === 'string' ? { type: event.type, keyId: event.keyId, hash: event.hash } : null;
    case 'plan':
      return typeof event.plan === 'string' && (PLAN_NAMES as readonly string[]).includes(event.plan)
        ? { type: 'plan', plan: event.plan as PlanName }
        : null;
    case 'ban-lifted':
      return typeof event.keyId === 'string' && typeof event.accountId === 'string' ? { type: 'ban-lifted', accountId: event.accountId, keyId: event.keyId } : null;
    case 'reset':
      return { type: 'reset' };
    default:
      return null;
  }
}

/** The scripts' arguments for a write conditional on `seen` (KEY_SET_CHANGED in redis-account-scripts.ts). */
export function seenArgs(seen: KeySetSeen | undefined): [check: string, version: string] {
  return [seen ? '1' : '0', String(seen?.version ?? 0)];
}
