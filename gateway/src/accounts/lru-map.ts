import { LRUCache } from 'lru-cache';

/**
 * A map bounded to `maxEntries` that evicts the least recently used entry (`lru-cache`): `get` and
 * `set` make an entry the most recent, `peek` does not. The caches of the gateway (keys, look-up
 * buckets, limiter state) are keyed by ids a client controls the number of, so none may grow
 * without limit; losing an entry only costs a store round trip, never correctness.
 */
export class LruMap<K extends NonNullable<unknown>, V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<K, V>;
  /** Entries pushed out to make room, since creation. */
  evictions = 0;

  /** `onEvict` hears of each entry pushed out to make room (not of `delete` or `clear`), e.g. to keep an index in step. */
  constructor(
    readonly maxEntries: number,
    onEvict?: (key: K, value: V) => void,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
    this.entries = new LRUCache<K, V>({
      max: maxEntries,
      dispose: (value, key, reason) => {
        if (reason !== 'evict') return;
        this.evictions += 1;
        onEvict?.(key, value);
      },
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** The value, leaving the order as it is. */
  peek(key: K): V | undefined {
    return this.entries.peek(key);
  }

  set(key: K, value: V): void {
    this.entries.set(key, value);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** The values, least recently used first. */
  values(): V[] {
    return [...this.entries.rvalues()].filter((value): value is V => value !== undefined);
  }
}
