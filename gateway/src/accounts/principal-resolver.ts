import { hashApiKey, parseApiKey, sameHash } from '../keys/api-key';
import { withDeadline } from '../store-errors';
import { LruMap } from './lru-map';
import { DEFAULT_KEY_ACCESS, type AccountStore, type ChangeEvent, type KeyResolution, type PlanName, type Principal } from './types';

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
  /** Past this, the entry is not served even while the store fails. */
  staleUntil: number;
  /** The account the key belongs to, and its plan, as last read (null when the store knows no such key or account). */
  accountId: string | null;
  plan: PlanName | null;
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
 * API key → Principal, for the request path. A key is first checked for shape and checksum (a
 * malformed key never reaches the store), then its SHA-256 is looked up in two in-process caches:
 * valid keys (least recently used evicted first, so a key in use stays) and, separately and
 * smaller, unknown and revoked keys (so a flood of minted keys evicts only its own kind). A miss
 * costs one store round trip (`AccountStore.resolveKey`). `cached` answers from the caches alone;
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
  private readonly store: AccountStore;
  private readonly ttlMs: number;
  private readonly staleIfErrorMs: number;
  private readonly lookupTimeoutMs: number;
  private readonly onQuotaChange: (accountId: string | null) => void;
  private readonly now: () => number;
  private readonly valid: LruMap<string, Entry<Principal>>;
  private readonly unknown: LruMap<string, Entry<null>>;
  private readonly inflight = new Map<string, Promise<LookUpResult>>();
  /** Account id → hashes of its keys in either cache: what an account's change refreshes, without a scan. */
  private readonly byAccount = new Map<string, Set<string>>();
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
    this.valid = new LruMap(maxEntries, (hash, entry) => this.unindex(hash, entry));
    this.unknown = new LruMap(maxUnknownEntries, (hash, entry) => this.unindex(hash, entry));
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
  async lookUp(apiKey: string, admission: Admission = ADMIT_ALL): Promise<LookUpResult> {
    const parsed = parseApiKey(apiKey);
    if (!parsed.ok) return null;
    const hash = hashApiKey(parsed.key);
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
    this.byAccount.clear();
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
    let found: KeyResolution | null;
    try {
      found = await withDeadline(this.store.resolveKey(hash), this.lookupTimeoutMs, 'key lookup');
    } catch (error) {
      // Entries that aged out or were refreshed qualify; a revoked key's entries were deleted.
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
    const principal = toPrincipal(hash, found);
    if (generation === this.generation) this.remember(hash, principal, ownerOf(hash, found));
    return principal;
  }

  private remember(hash: string, principal: Principal | null, owner: Pick<Entry<unknown>, 'accountId' | 'plan'>): void {
    this.forget(hash);
    const expiresAt = this.now() + this.ttlMs;
    const entry = { expiresAt, staleUntil: expiresAt + this.staleIfErrorMs, ...owner };
    if (principal) this.valid.set(hash, { value: principal, ...entry });
    else this.unknown.set(hash, { value: null, ...entry });
    if (owner.accountId === null) return;
    const hashes = this.byAccount.get(owner.accountId);
    if (hashes) hashes.add(hash);
    else this.byAccount.set(owner.accountId, new Set([hash]));
  }

  /** Drops the key's entries from both caches and the index. */
  private forget(hash: string): void {
    for (const cache of [this.valid, this.unknown] as LruMap<string, Entry<unknown>>[]) {
      const entry = cache.peek(hash);
      if (!entry) continue;
      cache.delete(hash);
      this.unindex(hash, entry);
    }
  }

  private unindex(hash: string, { accountId }: Entry<unknown>): void {
    if (accountId === null) return;
    const hashes = this.byAccount.get(accountId);
    hashes?.delete(hash);
    if (hashes?.size === 0) this.byAccount.delete(accountId);
  }

  /** The entries of one account's keys, in either cache. */
  private *entriesOf(accountId: string): Generator<Entry<unknown>> {
    for (const hash of this.byAccount.get(accountId) ?? []) {
      const entry = this.valid.peek(hash) ?? this.unknown.peek(hash);
      if (entry) yield entry;
    }
  }

  private *allEntries(): Generator<Entry<unknown>> {
    yield* this.valid.values();
    yield* this.unknown.values();
  }

  private invalidate(event: ChangeEvent): void {
    switch (event.type) {
      case 'ban-lifted':
        return; // changes nothing the resolver knows
      case 'account-created':
        // No valid key can be about an account that did not exist, and one read before its creation
        // event arrived (pub/sub may be late) is right. Only a refusal of a key recorded before its
        // account existed is wrong now; there is no lookup to cancel, nothing else to touch.
        for (const hash of [...(this.byAccount.get(event.accountId) ?? [])]) if (this.unknown.peek(hash)) this.forget(hash);
        return;
      case 'key-added':
        // A valid entry for it was read after it was added (this event may be late): only a refusal,
        // cached or on its way, is wrong now.
        this.generation++;
        this.inflight.delete(event.hash);
        if (this.unknown.peek(event.hash)) this.forget(event.hash);
        return;
      case 'key':
        this.generation++;
        this.forget(event.hash);
        this.inflight.delete(event.hash);
        return;
      case 'account':
        this.refresh(this.entriesOf(event.accountId));
        return this.tellLimiter(event.accountId);
      case 'plan':
        this.refresh([...this.allEntries()].filter((entry) => entry.plan === event.plan));
        return this.tellLimiter(null);
      case 'reset':
        // Nothing known changed, but events may have been missed: every key is re-read.
        this.refresh(this.allEntries());
        return;
    }
  }

  /**
   * These entries are re-read on their next use, and their lookups under way are not cached. A valid
   * one stays known as recently valid (`recheck`: its owner is not charged as an anonymous caller),
   * and keeps its stale-if-error time, so a store that fails now serves it stale instead of 503.
   */
  private refresh(entries: Iterable<Entry<unknown>>): void {
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

/** Whose key the store answered about (the index of account changes, and plan changes). */
function ownerOf(hash: string, found: KeyResolution | null): Pick<Entry<unknown>, 'accountId' | 'plan'> {
  if (!found || !sameHash(found.key.hash, hash)) return { accountId: null, plan: null };
  return { accountId: found.key.accountId, plan: found.account?.plan ?? null };
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
    plan: account.plan,
    quotas: Object.freeze({ perMinute, perDay }),
    // Expiry is checked on every request against this (keys/key-policy.ts), so an expired key is
    // refused on time from the cache, with no store round trip; a roll's new expiry comes with the
    // key's change event like a revocation. An unreadable time fails closed: expired.
    access: key.access ?? DEFAULT_KEY_ACCESS,
    expiresAt: key.expiresAt === undefined ? null : Date.parse(key.expiresAt) || 0,
    replacedBy: key.replacedBy ?? null,
  });
}
