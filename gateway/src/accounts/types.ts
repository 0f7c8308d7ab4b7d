/** Accounts, API keys and plans: what the gateway knows about its clients. */
import type { KeySubject } from '../limits/types';

export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];
/** The plan whose accounts each carry their own numbers (it has none). */
export const PLAN_WITHOUT_NUMBERS: PlanName = 'enterprise';
/** The plan of an account nobody chose one for: portal sign-ups and the demo account. */
export const STARTER_PLAN: PlanName = 'free';

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

/** What a key may do: `read-only` keys may only GET and HEAD (see keys/key-policy.ts). */
export const KEY_ACCESS_LEVELS = ['read-write', 'read-only'] as const;
export type KeyAccess = (typeof KEY_ACCESS_LEVELS)[number];
/** The access of a key created without one, and of keys stored before access existed. */
export const DEFAULT_KEY_ACCESS: KeyAccess = 'read-write';

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
  // The lifecycle fields below are optional so that keys stored before they existed read as they
  // always worked: no name, read-write, never expiring, not replaced.
  /** What the key is for, as its owner named it. */
  name?: string;
  /** Absent: `DEFAULT_KEY_ACCESS`. */
  access?: KeyAccess;
  /** When the key stops working, ISO 8601 in UTC as `Date.toISOString` writes it (so times compare as strings); absent: never. */
  expiresAt?: string;
  /** The id of the key that replaced this one in a roll; absent until then. */
  replacedBy?: string;
}

/** A roll, as the store makes it in one step: the replacement is added and the old key set to expire. */
export interface KeyRoll {
  /** The key being replaced. */
  keyId: string;
  /** Its replacement (same account), added in the same step. */
  replacement: ApiKeyRecord;
  /** When the old key stops working (ISO 8601, UTC); an earlier expiry of its own is kept. */
  expiresAt: string;
  /** Now (ISO 8601, UTC): a key already expired at this time is not rolled. */
  at: string;
  /** Roll only if the account's keys are still as the caller read them (see `KeyRecords.addKey`). */
  seen?: KeySetSeen;
}

/**
 * What a caller saw of an account's keys when it checked the key limits: the account's key-set
 * version (`KeyRecords.keySetVersion`), read before the keys. Any key added since makes it stale.
 */
export interface KeySetSeen {
  version: number;
}

/**
 * What came of a roll: `rolled` with the old key as it now is, or why it was not made (the key is
 * unknown, revoked, already replaced, or expired), with the key as it is when there is one.
 */
export type RollOutcome =
  | { outcome: 'rolled'; key: ApiKeyRecord }
  | { outcome: 'unknown'; key: null }
  | { outcome: 'revoked' | 'replaced' | 'expired'; key: ApiKeyRecord };

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

/**
 * Who is calling, as the pipeline sees it after authentication: what the limiter needs, and what
 * the key policy (keys/key-policy.ts) checks on every request without asking the store.
 */
export interface Principal extends KeySubject {
  /** The account's plan, as the key was last read (told to the operator's middleware, `res.locals.apiKey`). */
  plan: PlanName;
  access: KeyAccess;
  /** Unix ms when the key stops working; null: never. */
  expiresAt: number | null;
  /** The key that replaced this one in a roll (named when it is refused after the grace period); null if none. */
  replacedBy: string | null;
}

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
