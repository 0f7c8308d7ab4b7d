import { ReplyError } from 'ioredis';
import { connectTarget, createTargetSubscriber, type FeedSubscriber, type RedisClient, type RedisTarget } from '../redis';
import { StoreConflictError } from './errors';
import { sortKeys } from './sort';
import { StoreUnavailableError, withDeadline } from '../store-errors';

const STORE_DEADLINE_MS = 500;
/** A hash tag: all of the store in one cluster slot. */
const DEFAULT_PREFIX = '{gw}:';
import {
  BUILT_IN_PLANS,
  PLAN_NAMES,
  type Account,
  type AccountStore,
  type ApiKeyRecord,
  type ChangeEvent,
  type Plan,
  type PlanName,
} from './types';

/**
 * Accounts, keys and plans in Redis (a single server or a cluster), shared by every gateway replica.
 *
 * Layout (prefix `{gw}:` by default):
 * - `{gw}:account:<id>`  hash: id, name, plan, perMinute, perDay, email, createdAt ('' stands for null)
 * - `{gw}:key:<id>`      hash: id, accountId, hash, createdAt, revokedAt ('' while active)
 * - `{gw}:keyhash:<sha>` string: the key id, the index authentication uses
 * - `{gw}:account:<id>:keys` set: the ids of the account's keys
 * - `{gw}:plans`         hash: plan name → JSON `{perMinute, perDay}`, only for plans changed by `setPlan`
 *
 * `{gw}` is a Redis Cluster hash tag: every key of the store is in one slot, so the multi-key
 * scripts, MULTIs and pipelines below work unchanged on a cluster (ADR 0007). Every key this store
 * writes must start with `this.prefix`. The same names on a single Redis make moving to a cluster a
 * copy of the keys.
 *
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
}

const CREATE_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

const UPDATE_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PUBLISH', ARGV[1], ARGV[2])
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

// KEYS: key hash. ARGV: channel, revokedAt, key id. The first revocation time is kept.
const REVOKE_KEY = `
local hash = redis.call('HGET', KEYS[1], 'hash')
if not hash then return 0 end
if redis.call('HGET', KEYS[1], 'revokedAt') == '' then redis.call('HSET', KEYS[1], 'revokedAt', ARGV[2]) end
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'key', keyId = ARGV[3], hash = hash }))
return 1`;

export class RedisAccountStore implements AccountStore {
  readonly channel: string;
  private readonly redis: RedisClient;
  private readonly subscriber: FeedSubscriber;
  private readonly prefix: string;
  private readonly ownsRedis: boolean;
  private readonly listeners = new Set<(event: ChangeEvent) => void>();
  private readonly subscribed: Promise<void>;
  private hasBeenReady = false;
  private closed = false;

  constructor({ redis, subscriber, prefix = DEFAULT_PREFIX, ownsRedis = false }: RedisAccountStoreOptions) {
    this.redis = redis;
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
  static async connect(target: string | RedisTarget, options: { prefix?: string; waitMs?: number } = {}): Promise<RedisAccountStore> {
    const where = typeof target === 'string' ? { url: target } : target;
    const redis = await connectTarget(where, options.waitMs);
    return new RedisAccountStore({ redis, subscriber: createTargetSubscriber(where, redis), prefix: options.prefix, ownsRedis: true });
  }

  /** Resolves once the change feed is live (or the store closed); useful at start-up and in tests. */
  whenSubscribed(): Promise<void> {
    return this.subscribed;
  }

  async createAccount(account: Account): Promise<void> {
    const created = await this.run(() =>
      this.redis.eval(CREATE_ACCOUNT, 1, this.accountKey(account.id), this.channel, eventJson({ type: 'account', accountId: account.id }), ...accountFields(account)),
    );
    if (created !== 1) throw new StoreConflictError(`account ${account.id} already exists`);
  }

  async getAccount(id: string): Promise<Account | null> {
    const fields = await this.run(() => this.redis.hgetall(this.accountKey(id)));
    return toAccount(fields);
  }

  async updateAccount(account: Account): Promise<void> {
    const updated = await this.run(() =>
      this.redis.eval(UPDATE_ACCOUNT, 1, this.accountKey(account.id), this.channel, eventJson({ type: 'account', accountId: account.id }), ...accountFields(account)),
    );
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
        eventJson({ type: 'key', keyId: key.id, hash: key.hash }),
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
    const wrapped = (event: ChangeEvent) => listener(event);
    this.listeners.add(wrapped);
    return () => {
      this.listeners.delete(wrapped);
    };
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
    for (const listener of [...this.listeners]) {
      try {
        listener({ ...event });
      } catch {
        // One failing listener must not starve the others.
      }
    }
  }

  /** Connection failures and timeouts become StoreUnavailableError; Redis' own replies (bugs) stay as they are. */
  private async run<T>(command: () => Promise<T>): Promise<T> {
    try {
      // ioredis's own timeout is only a backstop (see redis.ts): ops calls get a bound of their own.
      return await withDeadline(command(), STORE_DEADLINE_MS, 'account store');
    } catch (error) {
      if (error instanceof ReplyError || error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError(`account store unavailable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  private accountKey(id: string): string {
    return `${this.prefix}account:${id}`;
  }

  private keyKey(id: string): string {
    return `${this.prefix}key:${id}`;
  }

  private accountKeysKey(accountId: string): string {
    return `${this.prefix}account:${accountId}:keys`;
  }

  private hashKey(hash: string): string {
    return `${this.prefix}keyhash:${hash}`;
  }

  private plansKey(): string {
    return `${this.prefix}plans`;
  }
}

function eventJson(event: ChangeEvent): string {
  return JSON.stringify(event);
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

function keyFields(key: ApiKeyRecord): string[] {
  return ['id', key.id, 'accountId', key.accountId, 'hash', key.hash, 'createdAt', key.createdAt, 'revokedAt', key.revokedAt ?? ''];
}

function toKey(fields: Record<string, string>): ApiKeyRecord | null {
  if (!fields.id || !fields.hash || !fields.accountId) return null;
  return {
    id: fields.id,
    accountId: fields.accountId,
    hash: fields.hash,
    createdAt: fields.createdAt ?? '',
    revokedAt: fields.revokedAt ? fields.revokedAt : null,
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
      return typeof event.accountId === 'string' ? { type: 'account', accountId: event.accountId } : null;
    case 'key':
      return typeof event.keyId === 'string' && typeof event.hash === 'string' ? { type: 'key', keyId: event.keyId, hash: event.hash } : null;
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
