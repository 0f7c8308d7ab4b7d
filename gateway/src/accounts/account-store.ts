import type { RetiredKeyRetention } from './retired-keys';
import type {
  Account,
  AccountPage,
  AccountQuery,
  ApiKeyRecord,
  ChangeEvent,
  KeyResolution,
  KeyRoll,
  KeySetSeen,
  Plan,
  PlanName,
  RollOutcome,
} from './types';

/**
 * The store of accounts, keys and plans, as the narrow parts its callers use: authentication
 * resolves keys, the account service keeps accounts, keys and plans, the key-use recorder writes
 * last uses, and every replica's caches follow the change feed. A caller takes only the parts it
 * uses, so a part can be re-implemented (or faked in a test) without the rest. Every implementation
 * (`memory-account-store.ts`, `redis-account-store.ts`) provides them all, as `AccountStore`, and
 * passes the contract suite of each part (`gateway/test/account-store.contract.ts`).
 */

/** Authentication's one store call. */
export interface KeyResolutionStore {
  /**
   * The key with this hash, its account and the account's plan, in one round trip: the only store
   * call authentication makes. null: no key has this hash. Revoked keys are returned as they are.
   */
  resolveKey(hash: string): Promise<KeyResolution | null>;
}

export interface AccountRecords {
  createAccount(account: Account): Promise<void>;
  getAccount(id: string): Promise<Account | null>;
  updateAccount(account: Account): Promise<void>;
  /** Accounts in creation order, filtered and paged, from indexes kept with every write (never a scan of all keys). */
  listAccounts(query: AccountQuery): Promise<AccountPage>;
}

export interface KeyRecords {
  /**
   * Adds the key, and counts one more in the account's key-set version. With `seen`, only if that
   * version is still the one the caller read, checked in the same atomic step as the write
   * (KeySetChangedError otherwise): callers that enforce the key limits on several replicas at once
   * cannot both pass them. A counter, not the keys' times: those come from each replica's clock.
   */
  addKey(key: ApiKeyRecord, seen?: KeySetSeen): Promise<void>;
  /** How many keys were ever added to the account (creations and rolls' replacements); 0 for none. */
  keySetVersion(accountId: string): Promise<number>;
  getKey(id: string): Promise<ApiKeyRecord | null>;
  /** Every key of the account, revoked ones included, oldest first. */
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /**
   * Marks the key revoked; false when there is no such key. The first revocation wins: revoking a
   * revoked key keeps its time (and still announces it, which is harmless). Each store does it in
   * one atomic step, so two revocations racing on different replicas cannot both set the time: the
   * check lives where the write does (Redis's script, the in-process store's synchronous method) and
   * the store contract tests it once for all (`gateway/test/account-store-contract/revocation.ts`).
   */
  revokeKey(id: string, at: string): Promise<boolean>;
  /**
   * Removes for good the account's retired keys (revoked, or expired at `at`: a rolled key once its
   * grace period is over) that `retention` no longer keeps, by the one rule of `retiredKeysToRemove`
   * (retired-keys.ts): their records, hashes, places in the account's list and last uses, each with
   * a change event. A key that works at `at` is never removed, checked in the removal's own atomic
   * step. Answers the account's keys that remain, oldest first. A removed key's hash is then
   * unknown, which authentication answers as it answers any unknown key.
   */
  pruneRetiredKeys(accountId: string, at: string, retention: RetiredKeyRetention): Promise<ApiKeyRecord[]>;
  /**
   * Adds the replacement and sets the old key to expire and name its replacement, in one atomic
   * step with one change event per key, unless the old key is unknown, revoked, already replaced
   * or expired (then nothing is written). Refuses (StoreConflictError) a replacement whose id or
   * hash exists, or whose account is not the old key's.
   */
  rollKey(roll: KeyRoll): Promise<RollOutcome>;
}

export interface PlanRecords {
  /** Every plan, built-in numbers unless changed by `setPlan`. */
  listPlans(): Promise<Plan[]>;
  getPlan(name: PlanName): Promise<Plan>;
  setPlan(plan: Plan): Promise<void>;
}

/** Keys' last use, written in batches off the request path (`usage/key-use.ts`). */
export interface KeyUseRecords {
  /** Records when keys were last used (Unix ms); a time earlier than the one recorded changes nothing. */
  recordKeyUse(uses: ReadonlyMap<string, number>): Promise<void>;
  /** When each of these keys was last used, as recorded; keys never recorded are absent. */
  keysLastUsed(keyIds: readonly string[]): Promise<Map<string, number>>;
}

/** Every write of the store, told to every replica (this one included), so each can drop what it cached. */
export interface ChangeFeed {
  /** Tells every replica about a change made outside the store, e.g. a lifted ban. */
  announce(event: ChangeEvent): Promise<void>;
  /** Subscribes to changes made by any replica (this one included); returns the unsubscribe function. */
  onChange(listener: (event: ChangeEvent) => void): () => void;
}

/** The whole store, as a backend builds it (`gateway/src/backends/`). */
export interface AccountStore extends KeyResolutionStore, AccountRecords, KeyRecords, PlanRecords, KeyUseRecords, ChangeFeed {
  close(): Promise<void>;
}
