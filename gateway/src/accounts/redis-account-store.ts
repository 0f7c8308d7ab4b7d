import { connectTarget, createTargetSubscriber, endConnection, type FeedSubscriber, type RedisClient, type RedisTarget } from '../redis';
import { KeySetChangedError, StoreConflictError } from './errors';
import { ORDER_KEY_ID_OFFSET, orderKeyOf, positionOf, positionOfOrderKey, searchTextOf } from './search';
import { retiredKeysToRemove, type RetiredKeyRetention } from './retired-keys';
import { sortKeys } from './sort';
import { storeCall } from '../store-errors';
import { accountFields, eventJson, fromPairs, keyFields, seenArgs, toAccount, toKey, toPlan } from './redis-account-codec';
import { RedisAccountKeys } from './redis-account-keys';
import { RedisChangeFeed } from './redis-change-feed';
import { readKeyUses, writeKeyUses } from './redis-key-uses';
import { ADD_KEY, CREATE_ACCOUNT, LIST_ACCOUNTS, LIST_BUDGET, REMOVE_RETIRED_KEYS, RESOLVE_KEY, REVOKE_KEY, ROLL_KEY, UPDATE_ACCOUNT } from './redis-account-scripts';
import { PLAN_NAMES, type Account, type AccountPage, type AccountQuery, type ApiKeyRecord, type ChangeEvent, type KeyResolution, type KeyRoll, type KeySetSeen, type Plan, type PlanName, type RollOutcome } from './types';
import type { AccountStore } from './account-store';

/** How long a call waits on Redis when nobody says (`REDIS_TIMEOUT_MS` × 2, as a key lookup). */
const STORE_DEADLINE_MS = 500;
/** A hash tag: all of the store in one cluster slot. */
const DEFAULT_PREFIX = '{gw}:';

export interface RedisAccountStoreOptions {
  /** The command connection (`connectRedis` or `connectCluster`): no offline queue, short timeout. */
  redis: RedisClient;
  /** A dedicated connection for SUBSCRIBE (`createTargetSubscriber`); the store owns and closes it. */
  subscriber: FeedSubscriber;
  prefix?: string;
  /** Whether `close()` also closes `redis` (true when the store created it). */
  ownsRedis?: boolean;
  /** Index entries one listing script call may look at before it hands back (default 5,000). */
  listBudget?: number;
  /** How long one call waits on Redis before it counts as unavailable (default 500 ms). */
  deadlineMs?: number;
}

/**
 * Accounts, keys and plans in Redis (a single server or a cluster), shared by every gateway replica.
 *
 * The names of its Redis keys, and what each holds, are in `redis-account-keys.ts`.
 *
 * The indexes are written in the same script as the account, so they can never disagree with it.
 * Every write and its `ChangeEvent` go out in one Lua script (`redis-account-scripts.ts`) or MULTI,
 * so no replica can miss a change that was made: the PUBLISH happens exactly when the write does.
 * Listeners are fed by a separate subscriber connection (`RedisChangeFeed`). Records are written
 * and read by `redis-account-codec.ts`.
 */
export class RedisAccountStore implements AccountStore {
  readonly channel: string;
  private readonly redis: RedisClient;
  private readonly feed: RedisChangeFeed;
  private readonly keys: RedisAccountKeys;
  private readonly ownsRedis: boolean;
  private readonly listBudget: number;
  private readonly deadlineMs: number;
  private closed = false;

  constructor({ redis, subscriber, prefix = DEFAULT_PREFIX, ownsRedis = false, listBudget = LIST_BUDGET, deadlineMs = STORE_DEADLINE_MS }: RedisAccountStoreOptions) {
    this.redis = redis;
    this.deadlineMs = deadlineMs;
    this.listBudget = listBudget;
    this.keys = new RedisAccountKeys(prefix);
    this.ownsRedis = ownsRedis;
    this.channel = `${prefix}changes`;
    this.feed = new RedisChangeFeed(subscriber, this.channel);
  }

  /** A store with its own two connections (command and subscriber) to a Redis URL or a cluster. */
  static async connect(target: string | RedisTarget, options: { prefix?: string; waitMs?: number; listBudget?: number } = {}): Promise<RedisAccountStore> {
    const where = typeof target === 'string' ? { url: target } : target;
    const redis = await connectTarget(where, options.waitMs);
    return new RedisAccountStore({ redis, subscriber: createTargetSubscriber(where, redis), prefix: options.prefix, ownsRedis: true, listBudget: options.listBudget });
  }

  /** Resolves once the change feed is live (or the store closed); useful at start-up and in tests. */
  whenSubscribed(): Promise<void> {
    return this.feed.whenSubscribed();
  }

  async createAccount(account: Account): Promise<void> {
    const created = await this.run(() => this.redis.eval(CREATE_ACCOUNT, ...this.accountWrite(account, { type: 'account-created', accountId: account.id })));
    if (created !== 1) throw new StoreConflictError(`account ${account.id} already exists`);
  }

  async listAccounts({ limit, after, plan, search = '' }: AccountQuery): Promise<AccountPage> {
    const index = plan === undefined ? this.keys.created : this.keys.planIndex(plan);
    const found: string[] = [];
    let from = after ? `(${orderKeyOf(after)}` : '-';
    // One more than the page: finding it is what says a next page exists.
    for (;;) {
      const reply = await this.run(() => this.redis.eval(LIST_ACCOUNTS, 2, index, this.keys.search, from, limit + 1 - found.length, search, this.listBudget, ORDER_KEY_ID_OFFSET + 1));
      const [exhausted, last, ...orderKeys] = reply as [number, string, ...string[]];
      found.push(...orderKeys);
      if (exhausted === 1 || found.length > limit || last === '') break;
      from = `(${last}`;
    }
    const page = found.slice(0, limit).map((orderKey) => positionOfOrderKey(orderKey).id);
    const replies = page.length === 0 ? [] : await this.run(() => page.reduce((pipeline, id) => pipeline.hgetall(this.keys.account(id)), this.redis.pipeline()).exec());
    const accounts = (replies ?? []).map(([error, fields]) => {
      if (error) throw error;
      return toAccount(fields as Record<string, string>);
    });
    const listed = accounts.filter((account): account is Account => account !== null);
    return { accounts: listed, next: found.length > limit ? positionOfOrderKey(found[limit - 1]!) : null };
  }

  async getAccount(id: string): Promise<Account | null> {
    const fields = await this.run(() => this.redis.hgetall(this.keys.account(id)));
    return toAccount(fields);
  }

  async updateAccount(account: Account): Promise<void> {
    const updated = await this.run(() => this.redis.eval(UPDATE_ACCOUNT, ...this.accountWrite(account, { type: 'account', accountId: account.id })));
    if (updated !== 1) throw new StoreConflictError(`account ${account.id} does not exist`);
  }

  async addKey(key: ApiKeyRecord, seen?: KeySetSeen): Promise<void> {
    const added = await this.run(() =>
      this.redis.eval(
        ADD_KEY,
        4,
        this.keys.key(key.id),
        this.keys.keyHash(key.hash),
        this.keys.accountKeys(key.accountId),
        this.keys.keySetVersion(key.accountId),
        this.channel,
        eventJson({ type: 'key-added', keyId: key.id, hash: key.hash }),
        key.id,
        ...seenArgs(seen),
        ...keyFields(key),
      ),
    );
    if (added === -2) throw new KeySetChangedError(key.accountId);
    if (added === 0) throw new StoreConflictError(`key ${key.id} already exists`);
    if (added === -1) throw new StoreConflictError('a key with this hash already exists');
  }


  async keySetVersion(accountId: string): Promise<number> {
    return Number((await this.run(() => this.redis.get(this.keys.keySetVersion(accountId)))) ?? 0);
  }

  async getKey(id: string): Promise<ApiKeyRecord | null> {
    const fields = await this.run(() => this.redis.hgetall(this.keys.key(id)));
    return toKey(fields);
  }

  async resolveKey(hash: string): Promise<KeyResolution | null> {
    const reply = await this.run(() => this.redis.eval(RESOLVE_KEY, 2, this.keys.keyHash(hash), this.keys.plans, this.keys.key(''), this.keys.account('')));
    if (!Array.isArray(reply)) return null;
    const [keyFields, accountFields, storedPlan] = reply as [string[], string[], string | null];
    const key = toKey(fromPairs(keyFields));
    if (!key) return null;
    const account = toAccount(fromPairs(accountFields));
    const plan = account && PLAN_NAMES.includes(account.plan) ? toPlan(account.plan, storedPlan ?? undefined) : null;
    return { key, account, plan };
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const ids = await this.run(() => this.redis.smembers(this.keys.accountKeys(accountId)));
    if (ids.length === 0) return [];
    const replies = await this.run(() => ids.reduce((pipeline, id) => pipeline.hgetall(this.keys.key(id)), this.redis.pipeline()).exec());
    const keys = (replies ?? []).map(([error, fields]) => {
      if (error) throw error;
      return toKey(fields as Record<string, string>);
    });
    return sortKeys(keys.filter((key): key is ApiKeyRecord => key !== null));
  }

  async revokeKey(id: string, at: string): Promise<boolean> {
    const revoked = await this.run(() => this.redis.eval(REVOKE_KEY, 1, this.keys.key(id), this.channel, at, id));
    return revoked === 1;
  }

  async pruneRetiredKeys(accountId: string, at: string, retention: RetiredKeyRetention): Promise<ApiKeyRecord[]> {
    const keys = await this.listKeys(accountId);
    const ids = retiredKeysToRemove(keys, at, retention).map((key) => key.id);
    if (ids.length === 0) return keys;
    const removed = new Set(
      (await this.run(() => this.redis.eval(REMOVE_RETIRED_KEYS, 1 + ids.length, this.keys.lastUsed, ...ids.map((id) => this.keys.key(id)), this.channel, at, this.keys.keyHash(''), ...this.keys.accountKeysAround(), ...ids))) as string[],
    );
    return keys.filter((key) => !removed.has(key.id));
  }

  async rollKey({ keyId, replacement, expiresAt, at, seen }: KeyRoll): Promise<RollOutcome> {
    const reply = (await this.run(() =>
      this.redis.eval(
        ROLL_KEY,
        5,
        this.keys.key(keyId),
        this.keys.key(replacement.id),
        this.keys.keyHash(replacement.hash),
        this.keys.accountKeys(replacement.accountId),
        this.keys.keySetVersion(replacement.accountId),
        this.channel,
        at,
        expiresAt,
        replacement.id,
        eventJson({ type: 'key-added', keyId: replacement.id, hash: replacement.hash }),
        keyId,
        ...seenArgs(seen),
        ...keyFields(replacement),
      ),
    )) as [string];
    const [outcome] = reply;
    if (outcome === 'changed') throw new KeySetChangedError(replacement.accountId);
    if (outcome === 'id') throw new StoreConflictError(`key ${replacement.id} already exists`);
    if (outcome === 'hash') throw new StoreConflictError('a key with this hash already exists');
    if (outcome === 'account') throw new StoreConflictError(`the replacement of key ${keyId} belongs to another account`);
    if (outcome === 'unknown') return { outcome, key: null };
    const key = await this.getKey(keyId);
    if (!key) throw new Error(`key ${keyId} vanished during its roll`);
    if (outcome === 'rolled' || outcome === 'revoked' || outcome === 'replaced' || outcome === 'expired') return { outcome, key };
    throw new Error(`unexpected roll reply ${String(outcome)}`);
  }

  recordKeyUse(uses: ReadonlyMap<string, number>): Promise<void> {
    return writeKeyUses((command) => this.run(command), this.redis, this.keys.lastUsed, uses);
  }

  keysLastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    return readKeyUses((command) => this.run(command), this.redis, this.keys.lastUsed, keyIds);
  }

  async listPlans(): Promise<Plan[]> {
    const stored = await this.run(() => this.redis.hgetall(this.keys.plans));
    return PLAN_NAMES.map((name) => toPlan(name, stored[name]));
  }

  async getPlan(name: PlanName): Promise<Plan> {
    if (!PLAN_NAMES.includes(name)) throw new StoreConflictError(`unknown plan ${String(name)}`);
    const stored = await this.run(() => this.redis.hget(this.keys.plans, name));
    return toPlan(name, stored ?? undefined);
  }

  async setPlan(plan: Plan): Promise<void> {
    if (!PLAN_NAMES.includes(plan.name)) throw new StoreConflictError(`unknown plan ${String(plan.name)}`);
    const numbers = JSON.stringify({ perMinute: plan.perMinute, perDay: plan.perDay });
    const results = await this.run(() =>
      this.redis.multi().hset(this.keys.plans, plan.name, numbers).publish(this.channel, eventJson({ type: 'plan', plan: plan.name })).exec(),
    );
    const failure = results?.find(([error]) => error)?.[0];
    if (failure) throw failure;
  }

  onChange(listener: (event: ChangeEvent) => void): () => void {
    return this.feed.onChange(listener);
  }

  async announce(event: ChangeEvent): Promise<void> {
    await this.run(() => this.redis.publish(this.channel, eventJson(event)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.feed.close();
    if (this.ownsRedis) await endConnection(this.redis);
  }

  /** Connection failures and timeouts become StoreUnavailableError; Redis' own replies (bugs) stay as they are. */
  private run<T>(command: () => Promise<T>): Promise<T> {
    // ioredis's own timeout is only a backstop (see redis.ts): ops calls get a bound of their own.
    return storeCall(command(), this.deadlineMs, 'account store');
  }

  /**
   * The Redis key of `name` in this store's keyspace. Every key the store (and the ops modules that
   * keep their state beside it: usage board, audit log) writes is made here, so one prefix (one
   * hash tag on Redis Cluster) covers them all and multi-key scripts stay in one slot.
   */
  key(name: string): string {
    return this.keys.named(name);
  }

  /** numkeys, KEYS and ARGV of CREATE_ACCOUNT and UPDATE_ACCOUNT, which publish `event`. */
  private accountWrite(account: Account, event: ChangeEvent): [number, ...string[]] {
    const keys = [this.keys.account(account.id), this.keys.created, this.keys.search];
    // Lua's KEYS count from 1: the plan indexes follow the keys above.
    const firstPlanIndex = keys.length + 1;
    keys.push(...PLAN_NAMES.map((plan) => this.keys.planIndex(plan)));
    return [
      keys.length,
      ...keys,
      this.channel,
      eventJson(event),
      account.id,
      orderKeyOf(positionOf(account)),
      String(firstPlanIndex + PLAN_NAMES.indexOf(account.plan)),
      searchTextOf(account),
      String(firstPlanIndex),
      ...accountFields(account),
    ];
  }
}
