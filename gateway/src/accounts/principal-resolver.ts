import type { KeyHash } from '../keys/api-key';
import { withDeadline } from '../store-errors';
import { KeyEntries, ownerOf, toPrincipal, type KeyEntry } from './key-entries';
import type { ChangeEvent, KeyResolution, Principal } from './types';
import type { ChangeFeed, KeyResolutionStore } from './account-store';

export interface PrincipalResolverOptions {
  /** Where keys are looked up, and the change feed that tells the caches what to drop. */
  store: KeyResolutionStore & Pick<ChangeFeed, 'onChange'>;
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
// The answers without a principal are the same every time: no object made per request.
const REFUSED: CachedKey = Object.freeze({ state: 'refused' });
const RECHECK: CachedKey = Object.freeze({ state: 'recheck' });
const UNCACHED: CachedKey = Object.freeze({ state: 'uncached' });

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

/**
 * Lets a lookup go ahead (perhaps after a wait), or not; then hears whether the key was valid (a
 * store failure counts as not), e.g. to give back what the caller was charged for it.
 */
export interface Admission {
  admit(): Promise<boolean>;
  settle?(valid: boolean): void;
}
const ADMIT_ALL: Admission = { admit: () => Promise.resolve(true) };

/** After a failed refresh, how long the stale answer is served before the store is tried again. */
const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * API key hash → Principal, for the request path. The caller (the `identify` stage) has checked
 * the key's shape and checksum (a malformed key never reaches the store) and hashed it, once; its
 * SHA-256 is looked up in two in-process caches:
 * valid keys (least recently used evicted first, so a key in use stays) and, separately and
 * smaller, unknown and revoked keys (so a flood of minted keys evicts only its own kind). A miss
 * costs one store round trip (`KeyResolutionStore.resolveKey`). `cached` answers from the caches alone;
 * `lookUp` asks the store once an admission (the pipeline's: the look-up gate) lets it, and
 * requests that ask about one key while its lookup is under way share it, admission included.
 *
 * Invalidation follows `store.onChange`, and touches only what the change is about: a key event
 * drops that key's entries; an account change refreshes that account's keys, a plan change the
 * keys of accounts on that plan, a reset (the feed was interrupted) every key; a new account
 * touches no valid key. "Refresh" means re-read on next use, yet served stale while the store
 * fails: whatever happens to other accounts, a key verified in the last `ttlMs + staleIfErrorMs`
 * keeps working through an outage of the store; only its revocation (a key event) ends that.
 * Each entry also expires after `ttlMs`. A lookup that was under way when an invalidation arrived
 * is answered but not cached, so a read from before a revocation can never outlive it in the cache.
 */
export class PrincipalResolver {
  private readonly counts = { hits: 0, unknownHits: 0, misses: 0, staleServed: 0 };
  private readonly store: PrincipalResolverOptions['store'];
  private readonly ttlMs: number;
  private readonly staleIfErrorMs: number;
  private readonly lookupTimeoutMs: number;
  private readonly onQuotaChange: (accountId: string | null) => void;
  private readonly now: () => number;
  private readonly entries: KeyEntries;
  private readonly inflight = new Map<string, Promise<LookUpResult>>();
  /** Bumped by what may make any answer under way wrong (a key revoked, an account or plan changed, a reset). */
  private generation = 0;
  /**
   * Bumped by a key added: only a refusal under way may be wrong then (read before the key
   * existed), never a valid answer. Kept apart so that a valid key verified while its own creation
   * event was still on its way (pub/sub is late under load) is cached, and so survives an outage of
   * the store; it was answered but not cached, and the outage then answered 503.
   */
  private additions = 0;
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
    this.entries = new KeyEntries(maxEntries, maxUnknownEntries);
    this.onQuotaChange = onQuotaChange ?? (() => undefined);
    this.now = now;
    this.unsubscribe = store.onChange((event) => this.invalidate(event));
  }

  /** Counters and sizes, read by the metrics at scrape time. */
  get stats(): KeyCacheStats {
    return {
      ...this.counts,
      evictions: { valid: this.entries.valid.evictions, unknown: this.entries.unknown.evictions },
      entries: { valid: this.entries.valid.size, unknown: this.entries.unknown.size },
    };
  }

  /** What the caches say about the key of this hash, without any store work; counts a hit or a miss. */
  cached(hash: KeyHash): CachedKey {
    const now = this.now();
    const valid = this.entries.valid.peek(hash);
    if (valid && valid.expiresAt > now) {
      this.entries.valid.get(hash); // a hit makes it the most recently used
      this.counts.hits++;
      return { state: 'valid', principal: valid.value };
    }
    if (!valid) {
      const unknown = this.entries.unknown.get(hash);
      if (unknown && unknown.expiresAt > now) {
        this.counts.unknownHits++;
        return REFUSED;
      }
    }
    this.counts.misses++;
    return valid ? RECHECK : UNCACHED;
  }

  /**
   * Asks the store about a key `cached` could not answer: one round trip, started once `admit`
   * agrees. Concurrent lookups of one key share one admission and one round trip: a caller that
   * finds a lookup under way waits for it and is not admitted itself; if that lookup's own
   * admission was refused, the waiting callers try theirs, one at a time. So no store work is done
   * that no admission paid for, and none is paid for twice.
   * Answers null for an unknown or revoked key, NOT_ADMITTED when this caller's own admission was
   * refused. Rejects only when the store fails and no expired answer may be served.
   */
  async lookUp(hash: KeyHash, admission: Admission = ADMIT_ALL): Promise<LookUpResult> {
    for (;;) {
      // Another request may have loaded it meanwhile.
      const fresh = this.freshEntry(hash);
      if (fresh) return fresh.value;
      const underway = this.inflight.get(hash);
      if (!underway) return this.start(hash, admission);
      const result = await underway;
      if (result !== NOT_ADMITTED) return result;
      // That lookup's caller was refused: this one tries its own admission (or joins the next try).
    }
  }

  /** Forgets everything cached. */
  clear(): void {
    this.generation++;
    this.additions++;
    this.entries.clear();
    this.inflight.clear();
  }

  close(): void {
    this.unsubscribe();
    this.clear();
  }

  private freshEntry(hash: string): KeyEntry<Principal | null> | undefined {
    const now = this.now();
    const entry = this.entries.peek(hash);
    return entry && entry.expiresAt > now ? entry : undefined;
  }

  private start(hash: string, admission: Admission): Promise<LookUpResult> {
    const started = (async (): Promise<LookUpResult> => {
      if (!(await admission.admit())) return NOT_ADMITTED;
      let principal: Principal | null = null;
      try {
        principal = await this.load(hash);
        return principal;
      } finally {
        admission.settle?.(principal !== null);
      }
    })();
    this.inflight.set(hash, started);
    const settle = () => {
      if (this.inflight.get(hash) === started) this.inflight.delete(hash);
    };
    started.then(settle, settle);
    return started;
  }

  private async load(hash: string): Promise<Principal | null> {
    const generation = this.generation;
    const additions = this.additions;
    let found: KeyResolution | null;
    try {
      found = await withDeadline(this.store.resolveKey(hash), this.lookupTimeoutMs, 'key lookup');
    } catch (error) {
      // Entries that aged out or were refreshed qualify; a revoked key's entries were deleted.
      const expired = this.entries.peek(hash);
      const now = this.now();
      if (expired && now < expired.staleUntil) {
        this.counts.staleServed++;
        // Keeps the following requests from each waiting on the failing store, without stretching staleUntil.
        if (generation === this.generation) expired.expiresAt = Math.min(now + RETRY_AFTER_FAILURE_MS, expired.staleUntil);
        return expired.value;
      }
      throw error;
    }
    const principal = toPrincipal(hash, found);
    if (generation === this.generation && (principal !== null || additions === this.additions)) {
      const expiresAt = this.now() + this.ttlMs;
      this.entries.remember(hash, principal, { expiresAt, staleUntil: expiresAt + this.staleIfErrorMs, ...ownerOf(hash, found) });
    }
    return principal;
  }

  private invalidate(event: ChangeEvent): void {
    switch (event.type) {
      case 'ban-lifted':
        return; // changes nothing the resolver knows
      case 'account-created':
        // No valid key can be about an account that did not exist, and one read before its creation
        // event arrived (pub/sub may be late) is right. Only a refusal of a key recorded before its
        // account existed is wrong now; there is no lookup to cancel, nothing else to touch.
        for (const hash of this.entries.hashesOf(event.accountId)) if (this.entries.unknown.peek(hash)) this.entries.forget(hash);
        return;
      case 'key-added':
        // A valid entry for it was read after it was added (this event may be late): only a refusal,
        // cached or on its way, is wrong now.
        this.additions++;
        this.inflight.delete(event.hash);
        if (this.entries.unknown.peek(event.hash)) this.entries.forget(event.hash);
        return;
      case 'key':
        this.generation++;
        this.entries.forget(event.hash);
        this.inflight.delete(event.hash);
        return;
      case 'account':
        this.refresh(this.entries.entriesOf(event.accountId));
        return this.tellLimiter(event.accountId);
      case 'plan':
        this.refresh([...this.entries.all()].filter((entry) => entry.plan === event.plan));
        return this.tellLimiter(null);
      case 'reset':
        // Nothing known changed, but events may have been missed: every key is re-read.
        this.refresh(this.entries.all());
        return;
    }
  }

  /**
   * These entries are re-read on their next use, and their lookups under way are not cached. A valid
   * one stays known as recently valid (`recheck`: its owner is not charged as an anonymous caller),
   * and keeps its stale-if-error time, so a store that fails now serves it stale instead of 503.
   */
  private refresh(entries: Iterable<KeyEntry<unknown>>): void {
    this.generation++;
    this.inflight.clear();
    for (const entry of entries) entry.expiresAt = 0;
  }

  private tellLimiter(accountId: string | null): void {
    try {
      this.onQuotaChange(accountId);
    } catch {
      // The hook is a courtesy to the limiter; it must not break invalidation.
    }
  }
}
