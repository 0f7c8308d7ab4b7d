import { connectTarget, createTargetSubscriber, type FeedSubscriber, type RedisClient, type RedisTarget } from '../redis';
import { ChangeListeners } from './change-listeners';
import { StoreConflictError } from './errors';
import { ORDER_KEY_ID_OFFSET, orderKeyOf, positionOf, positionOfOrderKey, searchTextOf } from './search';
import { sortKeys } from './sort';
import { storeCall } from '../store-errors';

const STORE_DEADLINE_MS = 500;
/** A hash tag: all of the store in one cluster slot. */
const DEFAULT_PREFIX = '{gw}:';
import {
  BUILT_IN_PLANS,
  KEY_ACCESS_LEVELS,
  PLAN_NAMES,
  type Account,
  type AccountPage,
  type AccountQuery,
  type AccountStore,
  type ApiKeyRecord,
  type ChangeEvent,
  type KeyAccess,
  type KeyResolution,
  type KeyRoll,
  type Plan,
  type PlanName,
  type RollOutcome,
} from './types';

/**
 * Accounts, keys and plans in Redis (a single server or a cluster), shared by every gateway replica.
 *
 * Layout (prefix `{gw}:` by default):
 * - `{gw}:account:<id>`  hash: id, name, plan, perMinute, perDay, email, createdAt ('' stands for null)
 * - `{gw}:key:<id>`      hash: id, accountId, hash, createdAt, revokedAt ('' while active), and when
 *   set: masked, name, access, expiresAt, replacedBy (a key stored before a field existed lacks it
 *   and reads as the field's default)
 * - `{gw}:keyhash:<sha>` string: the key id, the index authentication uses
 * - `{gw}:account:<id>:keys` set: the ids of the account's keys
 * - `{gw}:plans`         hash: plan name → JSON `{perMinute, perDay}`, only for plans changed by `setPlan`
 * - `{gw}:accounts:created` sorted set, all scores 0, members `orderKeyOf(account)`: every account in
 *   creation order, paged with ZRANGEBYLEX (the listing's index)
 * - `{gw}:accounts:plan:<plan>` the same, one per plan (the plan filter's index)
 * - `{gw}:accounts:search` hash: account id → `searchTextOf(account)` (what `q` is matched against)
 * - `{gw}:keys:last-used` hash: key id → Unix ms of its last recorded use (flushed by the replicas)
 *
 * `{gw}` is a Redis Cluster hash tag: every key of the store is in one slot, so the multi-key
 * scripts, MULTIs and pipelines below work unchanged on a cluster (ADR 0007). Every key this store
 * writes must start with `this.prefix`. The same names on a single Redis make moving to a cluster a
 * copy of the keys.
 *
 * The indexes are written in the same script as the account, so they can never disagree with it.
 * Every write and its `ChangeEvent` go out in one Lua script or MULTI, so no replica can miss
 * a change that was made: the PUBLISH happens exactly when the write does. Listeners are fed by a
 * separate subscriber connection; when it comes back after a disconnection, messages may have
 * been lost in between, so listeners get `{type: 'reset'}` once the subscription is active again.
 */
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
}

// KEYS: account hash, creation index, search hash, then the plan indexes in PLAN_NAMES order.
// ARGV: channel, event, account id, order key, the plan's position in PLAN_NAMES (1-based), search text, field/value pairs.
const CREATE_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('ZADD', KEYS[2], 0, ARGV[4])
redis.call('ZADD', KEYS[3 + tonumber(ARGV[5])], 0, ARGV[4])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[6])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

// Same KEYS and ARGV as CREATE_ACCOUNT. The account leaves every plan index but its own (it was in
// at most one), and the creation index is written again, which also indexes accounts stored before it.
const UPDATE_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('ZADD', KEYS[2], 0, ARGV[4])
for i = 4, #KEYS do redis.call('ZREM', KEYS[i], ARGV[4]) end
redis.call('ZADD', KEYS[3 + tonumber(ARGV[5])], 0, ARGV[4])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[6])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

/**
 * One page of an index. KEYS: the index (creation or one plan's), the search hash.
 * ARGV: where to start (a ZRANGEBYLEX bound: '-' or '(' .. order key), how many to find, the search
 * text ('' matches all), how many entries this call may look at, where the id starts in an order key
 * (1-based, from `ORDER_KEY_ID_OFFSET`). Returns {exhausted (0/1), the last
 * order key looked at, the order keys found...}: the caller calls again from the last one looked at
 * until it has enough or the index is exhausted, so no single call holds Redis for long.
 */
const LIST_ACCOUNTS = `
local from, wanted, search, budget, idStart = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local found, last, looked = {}, '', 0
while looked < budget do
  local chunk = redis.call('ZRANGEBYLEX', KEYS[1], from, '+', 'LIMIT', 0, math.min(256, budget - looked))
  if #chunk == 0 then return {1, last, unpack(found)} end
  for _, orderKey in ipairs(chunk) do
    looked = looked + 1
    last = orderKey
    if search == '' then
      found[#found + 1] = orderKey
    else
      local text = redis.call('HGET', KEYS[2], string.sub(orderKey, idStart))
      if text and string.find(text, search, 1, true) then found[#found + 1] = orderKey end
    end
    if #found >= wanted then return {0, last, unpack(found)} end
  end
  from = '(' .. last
end
return {0, last, unpack(found)}`;

/** Entries one LIST_ACCOUNTS call may look at by default: a few milliseconds of Redis time at most. */
const LIST_BUDGET = 5_000;

// KEYS: the last-used hash. ARGV: key id, Unix ms, key id, Unix ms... A later time than the one there wins.
const RECORD_KEY_USE = `
for i = 1, #ARGV, 2 do
  local at = tonumber(ARGV[i + 1])
  if at > tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0') then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1`;

// KEYS: key hash, hash index, the account's key set. ARGV: channel, event, key id, field/value pairs.
const ADD_KEY = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('SET', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

// KEYS: key hash. ARGV: channel, revokedAt, key id. Only an active key gets the time (see AccountStore.revokeKey).
const REVOKE_KEY = `
local hash = redis.call('HGET', KEYS[1], 'hash')
if not hash then return 0 end
if redis.call('HGET', KEYS[1], 'revokedAt') == '' then redis.call('HSET', KEYS[1], 'revokedAt', ARGV[2]) end
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'key', keyId = ARGV[3], hash = hash }))
return 1`;

// KEYS: key record, the last-used hash. ARGV: channel, key id, the hash index's name and the
// account key set's name without their suffixes (the hash and the account are read in here). Only a
// revoked key goes; every name shares the prefix's hash slot.
const REMOVE_REVOKED_KEY = `
local fields = redis.call('HMGET', KEYS[1], 'hash', 'accountId', 'revokedAt')
local hash, accountId, revokedAt = fields[1], fields[2], fields[3]
if not hash or not revokedAt or revokedAt == '' then return 0 end
redis.call('DEL', KEYS[1])
if redis.call('GET', ARGV[3] .. hash) == ARGV[2] then redis.call('DEL', ARGV[3] .. hash) end
redis.call('SREM', ARGV[4] .. accountId .. ':keys', ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'key', keyId = ARGV[2], hash = hash }))
return 1`;

// KEYS: the old key's hash, the replacement's hash, its hash index entry, the account's key set.
// ARGV: channel, now (ISO), the old key's new expiry (ISO), the replacement's id, the replacement's
// event, the old key's id, the replacement's field/value pairs. ISO times in UTC as toISOString
// writes them compare as strings. Returns {outcome}: 'rolled', or why not ('unknown', 'revoked',
// 'replaced', 'expired'), or 'id', 'hash' or 'account' when the replacement collides with a key or
// belongs to another account. Nothing is written unless it is 'rolled'.
const ROLL_KEY = `
local old = redis.call('HMGET', KEYS[1], 'hash', 'revokedAt', 'replacedBy', 'expiresAt', 'accountId')
if not old[1] then return {'unknown'} end
if old[2] and old[2] ~= '' then return {'revoked'} end
if old[3] and old[3] ~= '' then return {'replaced'} end
if old[4] and old[4] ~= '' and old[4] <= ARGV[2] then return {'expired'} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {'id'} end
if redis.call('EXISTS', KEYS[3]) == 1 then return {'hash'} end
local fields = {}
for i = 7, #ARGV, 2 do fields[ARGV[i]] = ARGV[i + 1] end
if fields['accountId'] ~= old[5] then return {'account'} end
redis.call('HSET', KEYS[2], unpack(ARGV, 7))
redis.call('SET', KEYS[3], ARGV[4])
redis.call('SADD', KEYS[4], ARGV[4])
local expiresAt = ARGV[3]
if old[4] and old[4] ~= '' and old[4] < expiresAt then expiresAt = old[4] end
redis.call('HSET', KEYS[1], 'expiresAt', expiresAt, 'replacedBy', ARGV[4])
redis.call('PUBLISH', ARGV[1], ARGV[5])
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'key', keyId = ARGV[6], hash = old[1] }))
return {'rolled'}`;

// KEYS: the hash index entry, the plans hash. ARGV: the names of a key record and of an account
// without their ids (built by the store's key helpers), since the ids are only known in here.
// Every name shares the prefix's hash slot, so on a cluster the undeclared ones are local too.
// Returns nil for an unknown hash, else { key fields, account fields, the plan's stored numbers or nil }.
const RESOLVE_KEY = `
local id = redis.call('GET', KEYS[1])
if not id then return false end
local key = redis.call('HGETALL', ARGV[1] .. id)
local accountId
for i = 1, #key, 2 do if key[i] == 'accountId' then accountId = key[i + 1] end end
if not accountId then return { key, {}, false } end
local account = redis.call('HGETALL', ARGV[2] .. accountId)
local plan = false
for i = 1, #account, 2 do if account[i] == 'plan' then plan = redis.call('HGET', KEYS[2], account[i + 1]) end end
return { key, account, plan }`;

export class RedisAccountStore implements AccountStore {
  readonly channel: string;
  private readonly redis: RedisClient;
  private readonly subscriber: FeedSubscriber;
  private readonly prefix: string;
  private readonly ownsRedis: boolean;
  private readonly listBudget: number;
  private readonly listeners = new ChangeListeners();
  private readonly subscribed: Promise<void>;
  private hasBeenReady = false;
  private closed = false;

  constructor({ redis, subscriber, prefix = DEFAULT_PREFIX, ownsRedis = false, listBudget = LIST_BUDGET }: RedisAccountStoreOptions) {
    this.redis = redis;
    this.listBudget = listBudget;
    this.subscriber = subscriber;
    this.prefix = prefix;
    this.ownsRedis = ownsRedis;
    this.channel = `${prefix}changes`;

    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const event = parseChangeEvent(message);
      if (event) this.emit(event);
    });
    if (subscriber.status === 'ready') this.hasBeenReady = true;
    subscriber.on('ready', () => this.onSubscriberReady());
    this.subscribed = subscriber.subscribe(this.channel).then(
      () => undefined,
      () => undefined, // closed before it connected; a later 'ready' subscribes again
    );
  }

  /** A store with its own two connections (command and subscriber) to a Redis URL or a cluster. */
  static async connect(target: string | RedisTarget, options: { prefix?: string; waitMs?: number; listBudget?: number } = {}): Promise<RedisAccountStore> {
    const where = typeof target === 'string' ? { url: target } : target;
    const redis = await connectTarget(where, options.waitMs);
    return new RedisAccountStore({ redis, subscriber: createTargetSubscriber(where, redis), prefix: options.prefix, ownsRedis: true, listBudget: options.listBudget });
  }

  /** Resolves once the change feed is live (or the store closed); useful at start-up and in tests. */
  whenSubscribed(): Promise<void> {
    return this.subscribed;
  }

  async createAccount(account: Account): Promise<void> {
    const created = await this.run(() => this.redis.eval(CREATE_ACCOUNT, ...this.accountWrite(account, { type: 'account-created', accountId: account.id })));
    if (created !== 1) throw new StoreConflictError(`account ${account.id} already exists`);
  }

  async listAccounts({ limit, after, plan, search = '' }: AccountQuery): Promise<AccountPage> {
    const index = plan === undefined ? this.key('accounts:created') : this.planIndexKey(plan);
    const found: string[] = [];
    let from = after ? `(${orderKeyOf(after)}` : '-';
    // One more than the page: finding it is what says a next page exists.
    for (;;) {
      const reply = await this.run(() => this.redis.eval(LIST_ACCOUNTS, 2, index, this.key('accounts:search'), from, limit + 1 - found.length, search, this.listBudget, ORDER_KEY_ID_OFFSET + 1));
      const [exhausted, last, ...orderKeys] = reply as [number, string, ...string[]];
      found.push(...orderKeys);
      if (exhausted === 1 || found.length > limit || last === '') break;
      from = `(${last}`;
    }
    const page = found.slice(0, limit).map((orderKey) => positionOfOrderKey(orderKey).id);
    const replies = page.length === 0 ? [] : await this.run(() => page.reduce((pipeline, id) => pipeline.hgetall(this.accountKey(id)), this.redis.pipeline()).exec());
    const accounts = (replies ?? []).map(([error, fields]) => {
      if (error) throw error;
      return toAccount(fields as Record<string, string>);
    });
    const listed = accounts.filter((account): account is Account => account !== null);
    return { accounts: listed, next: found.length > limit ? positionOfOrderKey(found[limit - 1]!) : null };
  }

  async getAccount(id: string): Promise<Account | null> {
    const fields = await this.run(() => this.redis.hgetall(this.accountKey(id)));
    return toAccount(fields);
  }

  async updateAccount(account: Account): Promise<void> {
    const updated = await this.run(() => this.redis.eval(UPDATE_ACCOUNT, ...this.accountWrite(account, { type: 'account', accountId: account.id })));
    if (updated !== 1) throw new StoreConflictError(`account ${account.id} does not exist`);
  }

  async addKey(key: ApiKeyRecord): Promise<void> {
    const added = await this.run(() =>
      this.redis.eval(
        ADD_KEY,
        3,
        this.keyKey(key.id),
        this.hashKey(key.hash),
        this.accountKeysKey(key.accountId),
        this.channel,
        eventJson({ type: 'key-added', keyId: key.id, hash: key.hash }),
        key.id,
        ...keyFields(key),
      ),
    );
    if (added === 0) throw new StoreConflictError(`key ${key.id} already exists`);
    if (added === -1) throw new StoreConflictError('a key with this hash already exists');
  }

  async getKey(id: string): Promise<ApiKeyRecord | null> {
    const fields = await this.run(() => this.redis.hgetall(this.keyKey(id)));
    return toKey(fields);
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    const id = await this.run(() => this.redis.get(this.hashKey(hash)));
    return id === null ? null : this.getKey(id);
  }

  async resolveKey(hash: string): Promise<KeyResolution | null> {
    const reply = await this.run(() => this.redis.eval(RESOLVE_KEY, 2, this.hashKey(hash), this.plansKey(), this.keyKey(''), this.accountKey('')));
    if (!Array.isArray(reply)) return null;
    const [keyFields, accountFields, storedPlan] = reply as [string[], string[], string | null];
    const key = toKey(fromPairs(keyFields));
    if (!key) return null;
    const account = toAccount(fromPairs(accountFields));
    const plan = account && PLAN_NAMES.includes(account.plan) ? toPlan(account.plan, storedPlan ?? undefined) : null;
    return { key, account, plan };
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const ids = await this.run(() => this.redis.smembers(this.accountKeysKey(accountId)));
    if (ids.length === 0) return [];
    const replies = await this.run(() => ids.reduce((pipeline, id) => pipeline.hgetall(this.keyKey(id)), this.redis.pipeline()).exec());
    const keys = (replies ?? []).map(([error, fields]) => {
      if (error) throw error;
      return toKey(fields as Record<string, string>);
    });
    return sortKeys(keys.filter((key): key is ApiKeyRecord => key !== null));
  }

  async revokeKey(id: string, at: string): Promise<boolean> {
    const revoked = await this.run(() => this.redis.eval(REVOKE_KEY, 1, this.keyKey(id), this.channel, at, id));
    return revoked === 1;
  }

  async removeRevokedKey(id: string): Promise<boolean> {
    const removed = await this.run(() => this.redis.eval(REMOVE_REVOKED_KEY, 2, this.keyKey(id), this.key('keys:last-used'), this.channel, id, this.hashKey(''), this.accountKey('')));
    return removed === 1;
  }

  async rollKey({ keyId, replacement, expiresAt, at }: KeyRoll): Promise<RollOutcome> {
    const reply = (await this.run(() =>
      this.redis.eval(
        ROLL_KEY,
        4,
        this.keyKey(keyId),
        this.keyKey(replacement.id),
        this.hashKey(replacement.hash),
        this.accountKeysKey(replacement.accountId),
        this.channel,
        at,
        expiresAt,
        replacement.id,
        eventJson({ type: 'key-added', keyId: replacement.id, hash: replacement.hash }),
        keyId,
        ...keyFields(replacement),
      ),
    )) as [string];
    const [outcome] = reply;
    if (outcome === 'id') throw new StoreConflictError(`key ${replacement.id} already exists`);
    if (outcome === 'hash') throw new StoreConflictError('a key with this hash already exists');
    if (outcome === 'account') throw new StoreConflictError(`the replacement of key ${keyId} belongs to another account`);
    if (outcome === 'unknown') return { outcome, key: null };
    const key = await this.getKey(keyId);
    if (!key) throw new Error(`key ${keyId} vanished during its roll`);
    if (outcome === 'rolled' || outcome === 'revoked' || outcome === 'replaced' || outcome === 'expired') return { outcome, key };
    throw new Error(`unexpected roll reply ${String(outcome)}`);
  }

  async recordKeyUse(uses: ReadonlyMap<string, number>): Promise<void> {
    const pairs = [...uses].flatMap(([keyId, at]) => [keyId, String(Math.trunc(at))]);
    // Batches keep each script call short however many keys one flush carries.
    for (let i = 0; i < pairs.length; i += 1_000) {
      const batch = pairs.slice(i, i + 1_000);
      await this.run(() => this.redis.eval(RECORD_KEY_USE, 1, this.key('keys:last-used'), ...batch));
    }
  }

  async keysLastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    if (keyIds.length === 0) return found;
    const times = await this.run(() => this.redis.hmget(this.key('keys:last-used'), ...keyIds));
    keyIds.forEach((keyId, i) => {
      const at = Number(times[i]);
      if (times[i] !== null && Number.isFinite(at)) found.set(keyId, at);
    });
    return found;
  }

  async listPlans(): Promise<Plan[]> {
    const stored = await this.run(() => this.redis.hgetall(this.plansKey()));
    return PLAN_NAMES.map((name) => toPlan(name, stored[name]));
  }

  async getPlan(name: PlanName): Promise<Plan> {
    if (!PLAN_NAMES.includes(name)) throw new StoreConflictError(`unknown plan ${String(name)}`);
    const stored = await this.run(() => this.redis.hget(this.plansKey(), name));
    return toPlan(name, stored ?? undefined);
  }

  async setPlan(plan: Plan): Promise<void> {
    if (!PLAN_NAMES.includes(plan.name)) throw new StoreConflictError(`unknown plan ${String(plan.name)}`);
    const numbers = JSON.stringify({ perMinute: plan.perMinute, perDay: plan.perDay });
    const results = await this.run(() =>
      this.redis.multi().hset(this.plansKey(), plan.name, numbers).publish(this.channel, eventJson({ type: 'plan', plan: plan.name })).exec(),
    );
    const failure = results?.find(([error]) => error)?.[0];
    if (failure) throw failure;
  }

  onChange(listener: (event: ChangeEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  async announce(event: ChangeEvent): Promise<void> {
    await this.run(() => this.redis.publish(this.channel, eventJson(event)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.subscriber.disconnect();
    if (this.ownsRedis) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private onSubscriberReady(): void {
    if (!this.hasBeenReady) {
      this.hasBeenReady = true;
      return;
    }
    // ioredis resubscribes by itself, but 'ready' comes before Redis has confirmed it. Our own
    // SUBSCRIBE is answered after that one, so once it resolves no later message can be missed.
    this.subscriber.subscribe(this.channel).then(
      () => {
        if (!this.closed) this.emit({ type: 'reset' });
      },
      () => undefined, // disconnected again: the next 'ready' will try again
    );
  }

  private emit(event: ChangeEvent): void {
    this.listeners.emit(event);
  }

  /** Connection failures and timeouts become StoreUnavailableError; Redis' own replies (bugs) stay as they are. */
  private run<T>(command: () => Promise<T>): Promise<T> {
    // ioredis's own timeout is only a backstop (see redis.ts): ops calls get a bound of their own.
    return storeCall(command(), STORE_DEADLINE_MS, 'account store');
  }

  /**
   * The Redis key of `name` in this store's keyspace. Every key the store (and the ops modules that
   * keep their state beside it: usage board, audit log) writes is made here, so one prefix (one
   * hash tag on Redis Cluster) covers them all and multi-key scripts stay in one slot.
   */
  key(name: string): string {
    return `${this.prefix}${name}`;
  }

  /** numkeys, KEYS and ARGV of CREATE_ACCOUNT and UPDATE_ACCOUNT, which publish `event`. */
  private accountWrite(account: Account, event: ChangeEvent): [number, ...string[]] {
    const planIndexes = PLAN_NAMES.map((plan) => this.planIndexKey(plan));
    return [
      3 + planIndexes.length,
      this.accountKey(account.id),
      this.key('accounts:created'),
      this.key('accounts:search'),
      ...planIndexes,
      this.channel,
      eventJson(event),
      account.id,
      orderKeyOf(positionOf(account)),
      String(PLAN_NAMES.indexOf(account.plan) + 1),
      searchTextOf(account),
      ...accountFields(account),
    ];
  }

  private planIndexKey(plan: PlanName): string {
    return this.key(`accounts:plan:${plan}`);
  }

  private accountKey(id: string): string {
    return this.key(`account:${id}`);
  }

  private keyKey(id: string): string {
    return this.key(`key:${id}`);
  }

  private accountKeysKey(accountId: string): string {
    return this.key(`account:${accountId}:keys`);
  }

  private hashKey(hash: string): string {
    return this.key(`keyhash:${hash}`);
  }

  private plansKey(): string {
    return this.key('plans');
  }
}

function eventJson(event: ChangeEvent): string {
  return JSON.stringify(event);
}

/** HGETALL's reply inside a script is a flat field, value, field, value… list. */
function fromPairs(pairs: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i]!] = pairs[i + 1]!;
  return fields;
}

const nullable = (value: number | null) => (value === null ? '' : String(value));
const fromNullable = (value: string | undefined) => (value === undefined || value === '' ? null : Number(value));

function accountFields(account: Account): string[] {
  const { id, name, plan, perMinute, perDay, email, createdAt } = account;
  return ['id', id, 'name', name, 'plan', plan, 'perMinute', nullable(perMinute), 'perDay', nullable(perDay), 'email', email ?? '', 'createdAt', createdAt];
}

function toAccount(fields: Record<string, string>): Account | null {
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

function keyFields(key: ApiKeyRecord): string[] {
  const optional = OPTIONAL_KEY_FIELDS.flatMap((field) => (key[field] ? [field, key[field]] : []));
  return ['id', key.id, 'accountId', key.accountId, 'hash', key.hash, 'createdAt', key.createdAt, 'revokedAt', key.revokedAt ?? '', ...optional];
}

function toKey(fields: Record<string, string>): ApiKeyRecord | null {
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

function toPlan(name: PlanName, stored: string | undefined): Plan {
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
