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
  /**
   * A form that identifies the key to a person without revealing it (`ask_live_…AbC1`), made when
   * the key is created, since only its hash is kept. Absent on keys stored before it existed.
   */
  masked?: string;
}

/** A place in the accounts' creation order (oldest first, ties by id): where a page ends. */
export interface AccountPosition {
  createdAtMs: number;
  id: string;
}

export interface AccountQuery {
  /** At most this many accounts. */
  limit: number;
  /** Only accounts after this one in creation order. */
  after?: AccountPosition;
  plan?: PlanName;
  /** Only accounts whose `searchTextOf` contains this, already passed through `normaliseSearch`. */
  search?: string;
}

export interface AccountPage {
  accounts: Account[];
  /** Where the next page starts, when more accounts match; null on the last page. */
  next: AccountPosition | null;
}

/** What authenticating one key needs, read by the store in one round trip. */
export interface KeyResolution {
  key: ApiKeyRecord;
  /** The key's account; null when it does not exist (any more). */
  account: Account | null;
  /** The account's plan with its current numbers; null without an account. */
  plan: Plan | null;
}

/** Who is calling, as the pipeline sees it after authentication: exactly what the limiter needs. */
export type Principal = KeySubject;

/** Published by a store on every write, so every replica can drop what it cached. */
export type ChangeEvent =
  /** A new account: nothing cached can be about it, so no replica drops anything for it. */
  | { type: 'account-created'; accountId: string }
  /** An existing account changed (plan, quotas, name...): replicas re-read that account's keys only. */
  | { type: 'account'; accountId: string }
  /** A new key: only a refusal cached for its hash (someone tried it before it existed) is wrong now. */
  | { type: 'key-added'; keyId: string; hash: string }
  /** An existing key changed (revoked): replicas drop what they cached about it. */
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
  /**
   * The key with this hash, its account and the account's plan, in one round trip: the only store
   * call authentication makes. null: no key has this hash. Revoked keys are returned as they are.
   */
  resolveKey(hash: string): Promise<KeyResolution | null>;
  /** Every key of the account, revoked ones included, oldest first. */
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when there is no such key. */
  revokeKey(id: string, at: string): Promise<boolean>;
  /**
   * Deletes a revoked key for good (its record, its hash, its place in the account's list and its
   * last use), so that revoked keys do not pile up; an active key is never deleted. False when there
   * is no such revoked key. Its hash is then unknown, which authentication answers as it answers a
   * revoked one.
   */
  removeRevokedKey(id: string): Promise<boolean>;

  /** Accounts in creation order, filtered and paged, from indexes kept with every write (never a scan of all keys). */
  listAccounts(query: AccountQuery): Promise<AccountPage>;
  /** Records when keys were last used (Unix ms); a time earlier than the one recorded changes nothing. */
  recordKeyUse(uses: ReadonlyMap<string, number>): Promise<void>;
  /** When each of these keys was last used, as recorded; keys never recorded are absent. */
  keysLastUsed(keyIds: readonly string[]): Promise<Map<string, number>>;

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
