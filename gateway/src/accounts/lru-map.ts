/**
 * A Map bounded to `maxEntries` that evicts the least recently used entry: `get` and `set` make an
 * entry the most recent, `peek` does not. Built on Map's insertion order (re-inserting moves an
 * entry to the young end), so every operation is O(1).
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  /** Entries pushed out to make room, since creation. */
  evictions = 0;

  /** `onEvict` hears of each entry pushed out to make room (not of `delete` or `clear`), e.g. to keep an index in step. */
  constructor(
    readonly maxEntries: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** The value, leaving the order as it is. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      const evicted = this.entries.get(oldest.value)!;
      this.entries.delete(oldest.value);
      this.evictions += 1;
      this.onEvict?.(oldest.value, evicted);
    }
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }
}
