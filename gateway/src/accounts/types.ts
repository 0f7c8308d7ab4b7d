/** Accounts, API keys and plans: what the gateway knows about its clients. */
import type { KeySubject } from '../limits/types';

export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  name: PlanName;
  /** null for enterprise: each enterprise account carries its own numbers. */
  perMinute: number | null;
  perDay: number | null;
}

export const BUILT_IN_PLANS: readonly Plan[] = Object.freeze([
  { name: 'free', perMinute: 60, perDay: 1_000 },
  { name: 'pro', perMinute: 300, perDay: 10_000 },
  { name: 'business', perMinute: 1_000, perDay: 100_000 },
  { name: 'enterprise', perMinute: null, perDay: null },
]);

export interface Account {
  id: string;
  name: string;
  plan: PlanName;
  /** Per-account overrides (how enterprise quotas are set); null: the plan's number. */
  perMinute: number | null;
  perDay: number | null;
  /** Set for accounts created in the developer portal (their log-in); null for accounts made by ops. */
  email: string | null;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  hash: string;
  createdAt: string;
  revokedAt: string | null;
}

/** Who is calling, as the pipeline sees it after authentication: exactly what the limiter needs. */
export type Principal = KeySubject;

/** Published by a store on every write, so every replica can drop what it cached. */
export type ChangeEvent =
  | { type: 'account'; accountId: string }
  | { type: 'key'; keyId: string; hash: string }
  | { type: 'plan'; plan: PlanName }
  /** An operator lifted a key's ban: replicas drop the ban they cached locally (kept beside the key's account). */
  | { type: 'ban-lifted'; accountId: string; keyId: string }
  /** The change feed was interrupted (e.g. Redis reconnect): anything cached may be stale. */
  | { type: 'reset' };

/**
 * The one store of accounts, keys and plans. Two implementations pass the same suite:
 * Redis (shared by all replicas) and in-process (the embedded default).
 */
export interface AccountStore {
  createAccount(account: Account): Promise<void>;
  getAccount(id: string): Promise<Account | null>;
  updateAccount(account: Account): Promise<void>;

  addKey(key: ApiKeyRecord): Promise<void>;
  getKey(id: string): Promise<ApiKeyRecord | null>;
  findKeyByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** Every key of the account, revoked ones included, oldest first. */
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when there is no such key. */
  revokeKey(id: string, at: string): Promise<boolean>;

  /** Every plan, built-in numbers unless changed by `setPlan`. */
  listPlans(): Promise<Plan[]>;
  getPlan(name: PlanName): Promise<Plan>;
  setPlan(plan: Plan): Promise<void>;

  /** Tells every replica (this one included) about a change made outside the store, e.g. a lifted ban. */
  announce(event: ChangeEvent): Promise<void>;

  /** Subscribes to changes made by any replica (this one included); returns the unsubscribe function. */
  onChange(listener: (event: ChangeEvent) => void): () => void;
  close(): Promise<void>;
}
