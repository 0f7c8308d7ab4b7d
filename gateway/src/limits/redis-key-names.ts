import type { KeyRef } from './types';

/** An account's names as one request's script needs them, on one UTC day (days since the epoch). */
export interface AccountKeyNames {
  readonly minute: string;
  readonly day: number;
  readonly dayBefore: string;
  readonly today: string;
  readonly dayAfter: string;
}

/** A key's ban and rejection counter, beside its account's windows. */
export interface KeyKeyNames {
  readonly accountId: string;
  readonly ban: string;
  readonly rejections: string;
}

/**
 * How many accounts' and keys' names are kept built. Past it the cache starts again empty: a
 * rebuild costs a few string joins, and a bound this simple costs nothing per hit (issue 29).
 */
const CACHED_NAMES = 10_000;

/**
 * The names of the Redis limiter's keys. Every key of an account carries the account id as its hash
 * tag (`rl:{acct_…}:minute`), the key's ban and rejection counter included, so on a Redis Cluster
 * everything one script call touches is in one slot, and accounts spread over the masters.
 * Anonymous per-IP counters are one key per call, under `anonymousPrefix`.
 */
export class RedisKeyNames {
  /** rate-limiter-flexible's prefix of the anonymous counters (it adds a colon and the client). */
  readonly anonymousPrefix: string;

  private readonly ofAccounts = new Map<string, AccountKeyNames>();
  private readonly ofKeys = new Map<string, KeyKeyNames>();

  constructor(private readonly prefix: string) {
    this.anonymousPrefix = `${prefix}:anon`;
  }

  /** The account's minute counter and the day counters around `day`, built once per account a day (the request path's). */
  ofAccount(accountId: string, day: number): AccountKeyNames {
    const known = this.ofAccounts.get(accountId);
    if (known?.day === day) return known;
    const [dayBefore, today, dayAfter] = this.daysAround(accountId, day);
    const names = { minute: known?.minute ?? this.minute(accountId), day, dayBefore, today, dayAfter };
    if (!known && this.ofAccounts.size >= CACHED_NAMES) this.ofAccounts.clear();
    this.ofAccounts.set(accountId, names);
    return names;
  }

  /** The key's ban and rejection counter, built once per key (the request path's). */
  ofKey(key: KeyRef): KeyKeyNames {
    const known = this.ofKeys.get(key.keyId);
    // A key id names one account's key; checked all the same, so a name can never be another account's.
    if (known?.accountId === key.accountId) return known;
    const names = { accountId: key.accountId, ban: this.ban(key), rejections: this.rejections(key) };
    if (!known && this.ofKeys.size >= CACHED_NAMES) this.ofKeys.clear();
    this.ofKeys.set(key.keyId, names);
    return names;
  }

  minute(accountId: string): string {
    return `${this.accountTag(accountId)}:minute`;
  }

  /** The account's counter of UTC day `day` (days since the epoch). */
  day(accountId: string, day: number): string {
    return `${this.accountTag(accountId)}:day:${day}`;
  }

  /** The counters of the day before `day`, `day` and the next: the script picks today's by Redis TIME. */
  daysAround(accountId: string, day: number): [string, string, string] {
    return [this.day(accountId, day - 1), this.day(accountId, day), this.day(accountId, day + 1)];
  }

  ban({ accountId, keyId }: KeyRef): string {
    return `${this.accountTag(accountId)}:key:${keyId}:ban`;
  }

  rejections({ accountId, keyId }: KeyRef): string {
    return `${this.accountTag(accountId)}:key:${keyId}:rejections`;
  }

  /** `{accountId}`: the hash tag that puts all of an account's keys in one cluster slot. */
  private accountTag(accountId: string): string {
    return `${this.prefix}:{${accountId}}`;
  }
}
