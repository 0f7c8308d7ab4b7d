import type { KeyRef } from './types';

/**
 * The names of the Redis limiter's keys. Every key of an account carries the account id as its hash
 * tag (`rl:{acct_…}:minute`), the key's ban and rejection counter included, so on a Redis Cluster
 * everything one script call touches is in one slot, and accounts spread over the masters.
 * Anonymous per-IP counters are one key per call, under `anonymousPrefix`.
 */
export class RedisKeyNames {
  /** rate-limiter-flexible's prefix of the anonymous counters (it adds a colon and the client). */
  readonly anonymousPrefix: string;

  constructor(private readonly prefix: string) {
    this.anonymousPrefix = `${prefix}:anon`;
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
