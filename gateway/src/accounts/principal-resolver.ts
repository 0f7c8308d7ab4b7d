import { hashApiKey, parseApiKey, sameHash } from '../keys/api-key';
import { withDeadline } from '../store-errors';
import { LruMap } from './lru-map';
import { DEFAULT_KEY_ACCESS, type AccountStore, type ChangeEvent, type KeyResolution, type Principal } from './types';

export interface PrincipalResolverOptions {
  store: AccountStore;
  /** Safety net for a missed change event: every entry is re-read after this long. */
  ttlMs?: number;
  /** While the store fails, an expired entry may still be served for this long past its expiry. */
  staleIfErrorMs?: number;
  /** Longest a request waits for one uncached lookup before it fails as unavailable. */
  lookupTimeoutMs?: number;
  /** Bound of the cache of valid keys (least recently used evicted first). */
  maxEntries?: number;
  /** Bound of the separate cache of unknown and revoked keys: anyone can mint those, so they must never evict valid ones. */
  maxUnknownEntries?: number;
  /** Told when quotas may have changed: an account id, or null for "any account" (plan change, reset). */
  onQuotaChange?: (accountId: string | null) => void;
  now?: () => number;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
  /** Past this, the entry is not served even while the store fails (0: never, it was invalidated). */
  staleUntil: number;
}

/**
 * What the caches know about a key, without asking the store:
 * - `valid`: a valid key (fresh entry);
 * - `refused`: unknown or revoked (fresh entry in the unknown-key cache);
 * - `recheck`: valid until recently (its entry aged out or was invalidated by an account or plan
 *   change): must be looked up again, but nobody can mint such a key;
 * - `uncached`: never seen, evicted, or only known as unknown long ago: a lookup is store work
 *   that anyone could ask for.
 */
export type CachedKey = { state: 'valid'; principal: Principal } | { state: 'refused' } | { state: 'recheck' } | { state: 'uncached' };

export interface KeyCacheStats {
  /** Requests answered from the cache of valid keys. */
  hits: number;
  /** Requests answered from the cache of unknown and revoked keys. */
  unknownHits: number;
  /** Requests that needed a store lookup (`recheck` and `uncached`). */
  misses: number;
  /** Answers served past their expiry because the store failed. */
  staleServed: number;
  evictions: { valid: number; unknown: number };
  entries: { valid: number; unknown: number };
}

/** What `lookUp` answers a caller whose own admission was refused: it did no store work. */
export const NOT_ADMITTED: unique symbol = Symbol('not admitted');
export type LookUpResult = Principal | null | typeof NOT_ADMITTED;

/** Lets a lookup go ahead, or not (e.g. once the caller has been charged for it). */
export type Admission = () => Promise<boolean>;
const ADMIT_ALL: Admission = () => Promise.resolve(true);

/** After a failed refresh, how long the stale answer is served before the store is tried again. */
const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * API key → Principal, for the request path. A key is first checked for shape and checksum (a
 * malformed key never reaches the store), then its SHA-256 is looked up in two in-process caches:
 * valid keys (least recently used evicted first, so a key in use stays) and, separately and
 * smaller, unknown and revoked keys (so a flood of minted keys evicts only its own kind). A miss
 * costs one store round trip (`AccountStore.resolveKey`). `cached` answers from the caches alone;
 * `lookUp` asks the store once an admission (the pipeline's: the client paid for it) lets it, and
 * requests that ask about one key while its lookup is under way share it, admission included.
 *
 * Invalidation follows `store.onChange`: a key event drops that key's entries; an account or plan
 * event makes every entry re-read (and never served stale); a reset (the feed was interrupted)
 * makes every entry re-read but lets it be served stale while the store fails. Each entry also
 * expires after `ttlMs`. A lookup that was under way when an invalidation arrived is answered but
 * not cached, so a read from before a revocation can never outlive it in the cache.
 */
export class PrincipalResolver {
  private readonly counts = { hits: 0, unknownHits: 0, misses: 0, staleServed: 0 };
  private readonly store: AccountStore;
  private readonly ttlMs: number;
  private readonly staleIfErrorMs: number;
  private readonly lookupTimeoutMs: number;
  private readonly onQuotaChange: (accountId: string | null) => void;
  private readonly now: () => number;
  private readonly valid: LruMap<string, Entry<Principal>>;
  private readonly unknown: LruMap<string, Entry<null>>;
  private readonly inflight = new Map<string, Promise<LookUpResult>>();
  private generation = 0;
  private readonly unsubscribe: () => void;

  constructor({
    store,
    ttlMs = 30_000,
    staleIfErrorMs = 300_000,
    lookupTimeoutMs = 500,
    maxEntries = 100_000,
    maxUnknownEntries = 10_000,
    onQuotaChange,
    now = Date.now,
  }: PrincipalResolverOptions) {
    this.store = store;
    this.ttlMs = ttlMs;
    this.staleIfErrorMs = staleIfErrorMs;
    this.lookupTimeoutMs = lookupTimeoutMs;
    this.valid = new LruMap(maxEntries);
    this.unknown = new LruMap(maxUnknownEntries);
    this.onQuotaChange = onQuotaChange ?? (() => undefined);
    this.now = now;
    this.unsubscribe = store.onChange((event) => this.invalidate(event));
  }

  /** Counters and sizes, read by the metrics at scrape time. */
  get stats(): KeyCacheStats {
    return {
      ...this.counts,
      evictions: { valid: this.valid.evictions, unknown: this.unknown.evictions },
      entries: { valid: this.valid.size, unknown: this.unknown.size },
    };
  }

  /**
   * What the caches say about `apiKey`, without any store work; counts a hit or a miss.
   * A malformed key is `refused` (it can never be valid).
   */
  cached(apiKey: string): CachedKey {
    const parsed = parseApiKey(apiKey);
    if (!parsed.ok) return { state: 'refused' };
    const hash = hashApiKey(parsed.key);
    const now = this.now();
    const valid = this.valid.peek(hash);
    if (valid && valid.expiresAt > now) {
      this.valid.get(hash); // a hit makes it the most recently used
      this.counts.hits++;
      return { state: 'valid', principal: valid.value };
    }
    if (!valid) {
      const unknown = this.unknown.get(hash);
      if (unknown && unknown.expiresAt > now) {
        this.counts.unknownHits++;
        return { state: 'refused' };
      }
    }
    this.counts.misses++;
    return { state: valid ? 'recheck' : 'uncached' };
  }

  /**
   * Asks the store about a key `cached` could not answer: one round trip, started once `admit`
   * agrees. Concurrent lookups of one key share one admission and one round trip: a caller that
   * finds a lookup under way waits for it and is not admitted itself; if that lookup's own
   * admission was refused, the waiting callers try theirs, one at a time. So no store work is done
   * that no admission paid for, and none is paid for twice.
   * Answers null for a malformed, unknown or revoked key, NOT_ADMITTED when this caller's own
   * admission was refused. Rejects only when the store fails and no expired answer may be served.
   */
  async lookUp(apiKey: string, admit: Admission = ADMIT_ALL): Promise<LookUpResult> {
    const parsed = parseApiKey(apiKey);
    if (!parsed.ok) return null;
    const hash = hashApiKey(parsed.key);
    for (;;) {
      // Another request may have loaded it meanwhile.
      const fresh = this.freshEntry(hash);
      if (fresh) return fresh.value;
      const underway = this.inflight.get(hash);
      if (!underway) return this.start(hash, admit);
      const result = await underway;
      if (result !== NOT_ADMITTED) return result;
      // That lookup's caller was refused: this one tries its own admission (or joins the next try).
    }
  }

  /** `cached`, then `lookUp` when the caches cannot answer. */
  async resolve(apiKey: string): Promise<Principal | null> {
    const answer = this.cached(apiKey);
    if (answer.state === 'valid') return answer.principal;
    if (answer.state === 'refused') return null;
    const result = await this.lookUp(apiKey);
    return result === NOT_ADMITTED ? null : result;
  }

  /** Forgets everything cached. */
  clear(): void {
    this.generation++;
    this.valid.clear();
    this.unknown.clear();
    this.inflight.clear();
  }

  close(): void {
    this.unsubscribe();
    this.clear();
  }

  private freshEntry(hash: string): Entry<Principal | null> | undefined {
    const now = this.now();
    const entry = this.valid.peek(hash) ?? this.unknown.peek(hash);
    return entry && entry.expiresAt > now ? entry : undefined;
  }

  private start(hash: string, admit: Admission): Promise<LookUpResult> {
    const started = (async (): Promise<LookUpResult> => ((await admit()) ? this.load(hash) : NOT_ADMITTED))();
    this.inflight.set(hash, started);
    const settle = () => {
      if (this.inflight.get(hash) === started) this.inflight.delete(hash);
    };
    started.then(settle, settle);
    return started;
  }

  private async load(hash: string): Promise<Principal | null> {
    const generation = this.generation;
    let principal: Principal | null;
    try {
      principal = toPrincipal(hash, await withDeadline(this.store.resolveKey(hash), this.lookupTimeoutMs, 'key lookup'));
    } catch (error) {
      // Only entries that merely aged out qualify: invalidated ones were deleted or marked never to be served stale.
      const expired = this.valid.peek(hash) ?? this.unknown.peek(hash);
      const now = this.now();
      if (expired && now < expired.staleUntil) {
        this.counts.staleServed++;
        // Keeps the following requests from each waiting on the failing store, without stretching staleUntil.
        if (generation === this.generation) expired.expiresAt = Math.min(now + RETRY_AFTER_FAILURE_MS, expired.staleUntil);
        return expired.value;
      }
      throw error;
    }
    if (generation === this.generation) this.remember(hash, principal);
    return principal;
  }

  private remember(hash: string, principal: Principal | null): void {
    const expiresAt = this.now() + this.ttlMs;
    const timing = { expiresAt, staleUntil: expiresAt + this.staleIfErrorMs };
    if (principal) {
      this.unknown.delete(hash);
      this.valid.set(hash, { value: principal, ...timing });
    } else {
      this.valid.delete(hash);
      this.unknown.set(hash, { value: null, ...timing });
    }
  }

  private invalidate(event: ChangeEvent): void {
    // A lifted ban changes nothing the resolver knows.
    if (event.type === 'ban-lifted') return;
    this.generation++;
    if (event.type === 'key') {
      this.valid.delete(event.hash);
      this.unknown.delete(event.hash);
      this.inflight.delete(event.hash);
      return;
    }
    this.inflight.clear();
    if (event.type === 'reset') {
      // Nothing known changed, but events may have been missed: re-read every key on its next use,
      // yet keep the entries, so a store that is still coming back serves them stale instead of 503.
      for (const entry of this.valid.values()) entry.expiresAt = 0;
      for (const entry of this.unknown.values()) entry.expiresAt = 0;
      return;
    }
    // An account or a plan changed: every valid key is re-read and never served stale, but stays
    // known as recently valid (`recheck`), so its owner is not charged as an anonymous caller.
    for (const entry of this.valid.values()) entry.expiresAt = entry.staleUntil = 0;
    this.unknown.clear();
    try {
      this.onQuotaChange(event.type === 'account' ? event.accountId : null);
    } catch {
      // The hook is a courtesy to the limiter; it must not break invalidation.
    }
  }
}

/** The caller behind a store answer, or null when the key must be refused. */
function toPrincipal(hash: string, found: KeyResolution | null): Principal | null {
  // The store found the record by its hash; the constant-time comparison keeps that true of any store.
  if (!found || !sameHash(found.key.hash, hash) || found.key.revokedAt !== null || !found.account) return null;
  const { key, account, plan } = found;
  const perMinute = account.perMinute ?? plan?.perMinute ?? null;
  const perDay = account.perDay ?? plan?.perDay ?? null;
  // Cannot happen through the account service (enterprise needs both numbers); without quotas nothing can be limited.
  if (perMinute === null || perDay === null) return null;
  return Object.freeze({
    keyId: key.id,
    accountId: account.id,
    quotas: Object.freeze({ perMinute, perDay }),
    // Expiry is checked on every request against this (keys/key-policy.ts), so an expired key is
    // refused on time from the cache, with no store round trip; a roll's new expiry comes with the
    // key's change event like a revocation. An unreadable time fails closed: expired.
    access: key.access ?? DEFAULT_KEY_ACCESS,
    expiresAt: key.expiresAt === undefined ? null : Date.parse(key.expiresAt) || 0,
    replacedBy: key.replacedBy ?? null,
  });
}
