import type { RedisClient } from '../redis';
import { storeCall } from '../store-errors';

/** The share of the day quota at which an account is told: 80 % (a warning) and 100 % (exhausted). */
export type QuotaThreshold = 80 | 100;

/**
 * Where quota crossings are deduplicated: the first replica to mark an account's threshold for a
 * UTC day wins and publishes the event; every other mark of it that day loses.
 */
export interface CrossingMarks {
  /** True for the first mark of (account, threshold, day); the mark is kept until `expiresAtMs`. */
  markOnce(accountId: string, threshold: QuotaThreshold, day: string, expiresAtMs: number, now?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** In process (the embedded default): one process, one map; marks of past days are dropped as days pass. */
export class MemoryCrossingMarks implements CrossingMarks {
  private readonly marks = new Map<string, number>();

  markOnce(accountId: string, threshold: QuotaThreshold, day: string, expiresAtMs: number, now = Date.now()): Promise<boolean> {
    for (const [mark, expiresAt] of this.marks) if (expiresAt <= now) this.marks.delete(mark);
    const mark = `${day}:${accountId}:${threshold}`;
    if (this.marks.has(mark)) return Promise.resolve(false);
    this.marks.set(mark, expiresAtMs);
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const MARK_DEADLINE_MS = 2_000;

/** On Redis (or a Cluster): SET NX with an expiry, one key per mark, so replicas agree. Never closes the connection. */
export class RedisCrossingMarks implements CrossingMarks {
  constructor(
    private readonly redis: RedisClient,
    /** The store's key names (`RedisAccountStore.key`), so the marks share its prefix and hash tag. */
    private readonly key: (name: string) => string,
  ) {}

  async markOnce(accountId: string, threshold: QuotaThreshold, day: string, expiresAtMs: number, now = Date.now()): Promise<boolean> {
    const key = this.key(`quota-crossed:${day}:${accountId}:${threshold}`);
    const ttlMs = Math.max(1, Math.ceil(expiresAtMs - now));
    const set = await storeCall(this.redis.set(key, '1', 'PX', ttlMs, 'NX'), MARK_DEADLINE_MS, 'marking a quota crossing');
    return set === 'OK';
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
