import { ChangeListeners } from './change-listeners';
import { KeySetChangedError, StoreConflictError } from './errors';
import { retiredKeysToRemove, type RetiredKeyRetention } from './retired-keys';
import { orderKeyOf, positionOf, positionOfOrderKey, searchTextOf } from './search';
import { sortKeys } from './sort';
import { BUILT_IN_PLANS, PLAN_NAMES, type Account, type AccountPage, type AccountQuery, type ApiKeyRecord, type ChangeEvent, type KeyResolution, type KeyRoll, type KeySetSeen, type Plan, type PlanName, type RollOutcome } from './types';
import type { AccountStore } from './account-store';

/**
 * The in-process store (the embedded default when no Redis is configured).
 * Values are copied in and out so a caller can never edit stored state by accident,
 * and listeners hear about a write synchronously, right after it.
 */
export class MemoryAccountStore implements AccountStore {
  private readonly accounts = new Map<string, Account>();
  private readonly keys = new Map<string, ApiKeyRecord>();
  private readonly keyIdByHash = new Map<string, string>();
  /** Keys ever added per account: `AccountStore.keySetVersion`. */
  private readonly keySetVersions = new Map<string, number>();
  private readonly plans = new Map<PlanName, Plan>(BUILT_IN_PLANS.map((plan) => [plan.name, { ...plan }]));
  private readonly listeners = new ChangeListeners();
  /** Every account's order key (see `orderKeyOf`), kept sorted: the creation order listings page through. */
  private readonly creationOrder: string[] = [];
  private readonly lastUsed = new Map<string, number>();

  async createAccount(account: Account): Promise<void> {
    if (this.accounts.has(account.id)) throw new StoreConflictError(`account ${account.id} already exists`);
    this.accounts.set(account.id, { ...account });
    const orderKey = orderKeyOf(positionOf(account));
    this.creationOrder.splice(firstAfter(this.creationOrder, orderKey), 0, orderKey);
    this.emit({ type: 'account-created', accountId: account.id });
  }

  async listAccounts({ limit, after, plan, search }: AccountQuery): Promise<AccountPage> {
    const accounts: Account[] = [];
    const start = after ? firstAfter(this.creationOrder, orderKeyOf(after)) : 0;
    for (let i = start; i < this.creationOrder.length; i++) {
      const account = this.accounts.get(positionOfOrderKey(this.creationOrder[i]!).id)!;
      if (plan !== undefined && account.plan !== plan) continue;
      if (search !== undefined && !searchTextOf(account).includes(search)) continue;
      if (accounts.length === limit) return { accounts, next: positionOf(accounts[accounts.length - 1]!) };
      accounts.push({ ...account });
    }
    return { accounts, next: null };
  }

  async getAccount(id: string): Promise<Account | null> {
    const account = this.accounts.get(id);
    return account ? { ...account } : null;
  }

  async updateAccount(account: Account): Promise<void> {
    if (!this.accounts.has(account.id)) throw new StoreConflictError(`account ${account.id} does not exist`);
    this.accounts.set(account.id, { ...account });
    this.emit({ type: 'account', accountId: account.id });
  }

  async addKey(key: ApiKeyRecord, seen?: KeySetSeen): Promise<void> {
    this.checkSeen(key.accountId, seen);
    if (this.keys.has(key.id)) throw new StoreConflictError(`key ${key.id} already exists`);
    if (this.keyIdByHash.has(key.hash)) throw new StoreConflictError('a key with this hash already exists');
    this.keys.set(key.id, { ...key });
    this.keyIdByHash.set(key.hash, key.id);
    this.keySetVersions.set(key.accountId, (this.keySetVersions.get(key.accountId) ?? 0) + 1);
    this.emit({ type: 'key-added', keyId: key.id, hash: key.hash });
  }

  async getKey(id: string): Promise<ApiKeyRecord | null> {
    const key = this.keys.get(id);
    return key ? { ...key } : null;
  }

  async resolveKey(hash: string): Promise<KeyResolution | null> {
    const id = this.keyIdByHash.get(hash);
    const key = id === undefined ? null : await this.getKey(id);
    if (!key) return null;
    const account = await this.getAccount(key.accountId);
    return { key, account, plan: account ? await this.getPlan(account.plan) : null };
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return this.keysOf(accountId);
  }

  private keysOf(accountId: string): ApiKeyRecord[] {
    return sortKeys([...this.keys.values()].filter((key) => key.accountId === accountId).map((key) => ({ ...key })));
  }

  async keySetVersion(accountId: string): Promise<number> {
    return this.keySetVersions.get(accountId) ?? 0;
  }

  /** KeySetChangedError when `seen` is given and stale (see `AccountStore.addKey`). */
  private checkSeen(accountId: string, seen: KeySetSeen | undefined): void {
    if (seen && (this.keySetVersions.get(accountId) ?? 0) !== seen.version) throw new KeySetChangedError(accountId);
  }

  async revokeKey(id: string, at: string): Promise<boolean> {
    const key = this.keys.get(id);
    if (!key) return false;
    if (key.revokedAt === null) key.revokedAt = at; // see AccountStore.revokeKey
    this.emit({ type: 'key', keyId: key.id, hash: key.hash });
    return true;
  }

  async pruneRetiredKeys(accountId: string, at: string, retention: RetiredKeyRetention): Promise<ApiKeyRecord[]> {
    // No await between the read and the removals: one atomic step, like Redis's script.
    for (const key of retiredKeysToRemove(this.keysOf(accountId), at, retention)) {
      this.keys.delete(key.id);
      if (this.keyIdByHash.get(key.hash) === key.id) this.keyIdByHash.delete(key.hash);
      this.lastUsed.delete(key.id);
      this.emit({ type: 'key', keyId: key.id, hash: key.hash });
    }
    return this.keysOf(accountId);
  }

  async rollKey({ keyId, replacement, expiresAt, at, seen }: KeyRoll): Promise<RollOutcome> {
    const key = this.keys.get(keyId);
    if (!key) return { outcome: 'unknown', key: null };
    if (key.revokedAt !== null) return { outcome: 'revoked', key: { ...key } };
    if (key.replacedBy !== undefined) return { outcome: 'replaced', key: { ...key } };
    if (key.expiresAt !== undefined && key.expiresAt <= at) return { outcome: 'expired', key: { ...key } };
    if (replacement.accountId !== key.accountId) throw new StoreConflictError(`the replacement of key ${keyId} belongs to another account`);
    await this.addKey(replacement, seen);
    // Rolling never lengthens a key's life: an earlier expiry of its own stands.
    if (key.expiresAt === undefined || expiresAt < key.expiresAt) key.expiresAt = expiresAt;
    key.replacedBy = replacement.id;
    this.emit({ type: 'key', keyId: key.id, hash: key.hash });
    return { outcome: 'rolled', key: { ...key } };
  }

  async recordKeyUse(uses: ReadonlyMap<string, number>): Promise<void> {
    for (const [keyId, at] of uses) if (at > (this.lastUsed.get(keyId) ?? 0)) this.lastUsed.set(keyId, at);
  }

  async keysLastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (const keyId of keyIds) {
      const at = this.lastUsed.get(keyId);
      if (at !== undefined) found.set(keyId, at);
    }
    return found;
  }

  async listPlans(): Promise<Plan[]> {
    return PLAN_NAMES.map((name) => ({ ...this.plans.get(name)! }));
  }

  async getPlan(name: PlanName): Promise<Plan> {
    const plan = this.plans.get(name);
    if (!plan) throw new StoreConflictError(`unknown plan ${String(name)}`);
    return { ...plan };
  }

  async setPlan(plan: Plan): Promise<void> {
    if (!this.plans.has(plan.name)) throw new StoreConflictError(`unknown plan ${String(plan.name)}`);
    this.plans.set(plan.name, { name: plan.name, perMinute: plan.perMinute, perDay: plan.perDay });
    this.emit({ type: 'plan', plan: plan.name });
  }

  async announce(event: ChangeEvent): Promise<void> {
    this.emit(event);
  }

  onChange(listener: (event: ChangeEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private emit(event: ChangeEvent): void {
    this.listeners.emit(event);
  }
}

/** Index of the first entry greater than `orderKey` in a sorted array (binary search). */
function firstAfter(sorted: readonly string[], orderKey: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! <= orderKey) low = middle + 1;
    else high = middle;
  }
  return low;
}
