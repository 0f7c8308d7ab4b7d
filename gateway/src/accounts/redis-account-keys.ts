import type { PlanName } from './types';

/**
 * The names of the Redis account store's keys, each made here from the prefix.
 *
 * Layout (prefix `{gw}:` by default):
 * - `{gw}:account:<id>`  hash: id, name, plan, perMinute, perDay, email, createdAt ('' stands for null)
 * - `{gw}:key:<id>`      hash: id, accountId, hash, createdAt, revokedAt ('' while active), and when
 *   set: masked, name, access, expiresAt, replacedBy (a key stored before a field existed lacks it
 *   and reads as the field's default)
 * - `{gw}:keyhash:<sha>` string: the key id, the index authentication uses
 * - `{gw}:account:<id>:keys` set: the ids of the account's keys
 * - `{gw}:account:<id>:key-version` string: how many keys were ever added to the account (the
 *   key-set version writes are conditional on; absent reads as 0)
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
 */
export class RedisAccountKeys {
  readonly created: string;
  readonly search: string;
  readonly lastUsed: string;
  readonly plans: string;

  constructor(private readonly prefix: string) {
    this.created = this.named('accounts:created');
    this.search = this.named('accounts:search');
    this.lastUsed = this.named('keys:last-used');
    this.plans = this.named('plans');
  }

  /** `name` in this store's keyspace (also for the ops modules that keep their state beside it). */
  named(name: string): string {
    return `${this.prefix}${name}`;
  }

  planIndex(plan: PlanName): string {
    return this.named(`accounts:plan:${plan}`);
  }

  account(id: string): string {
    return this.named(`account:${id}`);
  }

  key(id: string): string {
    return this.named(`key:${id}`);
  }

  accountKeys(accountId: string): string {
    const [before, after] = this.accountKeysAround();
    return `${before}${accountId}${after}`;
  }

  /** The account key set's name before and after the account id, for a script that reads the id itself. */
  accountKeysAround(): [string, string] {
    return [this.named('account:'), ':keys'];
  }

  keySetVersion(accountId: string): string {
    return this.named(`account:${accountId}:key-version`);
  }

  keyHash(hash: string): string {
    return this.named(`keyhash:${hash}`);
  }
}
