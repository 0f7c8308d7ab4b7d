import type { DailyCount, Quotas, WindowName, WindowState } from '../limits/types';
import type { ApiEnvironment } from '../../../shared/src/settings';
import { DEFAULT_KEY_ACCESS, type Account, type AccountPosition, type ApiKeyRecord, type KeyAccess, type Plan, type PlanName } from './types';

/** What the ops use cases answer (the admin API's bodies, the portal's pages' data), and how records become them. */

/** An account as the ops API shows it: effective quotas first, the per-account overrides beside them. */
export interface AccountView {
  id: string;
  name: string;
  plan: PlanName;
  perMinute: number | null;
  perDay: number | null;
  overrides: { perMinute: number | null; perDay: number | null };
  email: string | null;
  createdAt: string;
}

export interface WindowUsage {
  used: number;
  limit: number;
  remaining: number;
  /** ISO 8601, UTC. */
  resetAt: string;
}

export interface AccountDetails extends AccountView {
  usage: Record<WindowName, WindowUsage> | null;
  /** Accepted requests per UTC day, the last HISTORY_DAYS_SHOWN days ending today, oldest first. */
  history: DailyCount[];
}

/** An account's key as ops see it: never the key itself. */
export interface KeyView {
  id: string;
  /** What the key is for, as its owner named it; null when unnamed. */
  name: string | null;
  /** `ask_live_…Ab12`; null for keys created before masked forms were kept. */
  masked: string | null;
  access: KeyAccess;
  createdAt: string;
  /** ISO 8601, UTC: when the key stops working (a rolled key: the end of its grace period); null: never. */
  expiresAt: string | null;
  /** The id of the key that replaced this one in a roll; null if none did. */
  replacedBy: string | null;
  revokedAt: string | null;
  /** ISO 8601; a few seconds' resolution (see docs/operations.md); null if never used. */
  lastUsedAt: string | null;
  /** ISO 8601 end of a temporary ban in force; null when not banned. */
  bannedUntil: string | null;
}

/** A place in an account's key order (oldest first, ties by id): where a page of its keys ends. */
export interface KeyPosition {
  createdAtMs: number;
  id: string;
}

export interface KeyListQuery {
  /** At most this many keys (no limit when absent: the whole list). */
  limit?: number;
  /** Only keys after this one in creation order. */
  after?: KeyPosition;
}

export interface KeyPage {
  keys: KeyView[];
  /** Where the next page starts, when more keys follow; null on the last page. */
  next: KeyPosition | null;
}

export interface AccountListQuery {
  limit: number;
  after?: AccountPosition;
  plan?: PlanName;
  /** Matched inside the name or the email, without regard to case. */
  search?: string;
}

export interface AccountViewPage {
  accounts: AccountView[];
  next: AccountPosition | null;
}

export interface CreatedKey {
  id: string;
  /** Shown this once; only its SHA-256 is stored. */
  key: string;
  accountId: string;
  createdAt: string;
  /** Where the key works: this deployment's environment (`ask_live_` production, `ask_test_` staging). */
  environment: ApiEnvironment;
  name: string | null;
  access: KeyAccess;
  expiresAt: string | null;
}

/** A key made by a roll, and the key it replaces with the end of that key's grace period. */
export interface RolledKey extends CreatedKey {
  replaces: { id: string; expiresAt: string };
}

/** A key as ops see it, with its last use and any ban in force (Unix ms; undefined or null: none). */
export function keyViewOf(key: ApiKeyRecord, lastUsed: number | undefined, bannedUntil: number | null): KeyView {
  return {
    id: key.id,
    name: key.name ?? null,
    masked: key.masked ?? null,
    access: key.access ?? DEFAULT_KEY_ACCESS,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt ?? null,
    replacedBy: key.replacedBy ?? null,
    revokedAt: key.revokedAt,
    lastUsedAt: lastUsed === undefined ? null : new Date(lastUsed).toISOString(),
    bannedUntil: bannedUntil === null ? null : new Date(bannedUntil).toISOString(),
  };
}

export function viewOf(account: Account, plan: Plan): AccountView {
  return {
    id: account.id,
    name: account.name,
    plan: account.plan,
    perMinute: account.perMinute ?? plan.perMinute,
    perDay: account.perDay ?? plan.perDay,
    overrides: { perMinute: account.perMinute, perDay: account.perDay },
    email: account.email,
    createdAt: account.createdAt,
  };
}

export function usageOf(windows: WindowState[], quotas: Quotas, now: number): Record<WindowName, WindowUsage> {
  const one = (name: WindowName, limit: number): WindowUsage => {
    const state = windows.find((window) => window.name === name);
    if (!state) return { used: 0, limit, remaining: limit, resetAt: new Date(defaultReset(name, now)).toISOString() };
    return {
      used: Math.max(0, state.limit - state.remaining),
      limit: state.limit,
      remaining: state.remaining,
      resetAt: new Date(state.resetAtMs).toISOString(),
    };
  };
  return { minute: one('minute', quotas.perMinute), day: one('day', quotas.perDay) };
}

/** Only used if a limiter reports no state for a window: nothing counted yet, reset at the window's natural end. */
function defaultReset(name: WindowName, now: number): number {
  if (name === 'minute') return now + 60_000;
  const midnight = new Date(now);
  midnight.setUTCHours(24, 0, 0, 0);
  return midnight.getTime();
}
