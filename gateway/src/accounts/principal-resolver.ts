import { hashApiKey, parseApiKey, sameHash } from '../keys/api-key';
import { withDeadline } from '../store-errors';
import type { AccountStore, ChangeEvent, Principal } from './types';

export interface PrincipalResolverOptions {
  store: AccountStore;
  /** Safety net for a missed change event: every entry is re-read after this long. */
  ttlMs?: number;
  /** While the store fails, an expired entry may still be served for this long past its expiry. */
  staleIfErrorMs?: number;
  /** Longest a request waits for one uncached lookup (several store round trips) before it fails as unavailable. */
  lookupTimeoutMs?: number;
  /** Bounds memory: anyone can mint well-formed unknown keys, and each is a negative entry. */
  maxEntries?: number;
  /** Told when quotas may have changed: an account id, or null for "any account" (plan change, reset). */
  onQuotaChange?: (accountId: string | null) => void;
  now?: () => number;
}

interface Entry {
  principal: Principal | null;
  expiresAt: number;
  /** Past this, the entry is not served even while the store fails. */
  staleUntil: number;
}

/** After a failed refresh, how long the stale answer is served before the store is tried again. */
const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * API key → Principal, for the request path. A key is first checked for shape and checksum
 * (a malformed key never reaches the store), then looked up by its SHA-256 in an in-process
 * cache that remembers both hits and misses, so after the first request a key costs no store
 * round trip.
 *
 * Invalidation follows `store.onChange`: a key event drops that key's entry; an account, plan
 * or reset event drops everything (admin changes are rare, and "which keys belong to this
 * account" would be one more index to keep right). Each entry also expires after `ttlMs`.
 * A lookup that was under way when an invalidation arrived is answered but not cached, so a
 * read from before a revocation can never outlive it in the cache.
 */
export class PrincipalResolver {
  readonly stats = { hits: 0, misses: 0, staleServed: 0 };
  private readonly store: AccountStore;
  private readonly ttlMs: number;
  private readonly staleIfErrorMs: number;
  private readonly maxEntries: number;
  private readonly lookupTimeoutMs: number;
  private readonly onQuotaChange: (accountId: string | null) => void;
  private readonly now: () => number;
  private readonly cache = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Principal | null>>();
  private generation = 0;
  private readonly unsubscribe: () => void;

  constructor({
    store,
    ttlMs = 30_000,
    staleIfErrorMs = 300_000,
    lookupTimeoutMs = 500,
    maxEntries = 100_000,
    onQuotaChange,
    now = Date.now,
  }: PrincipalResolverOptions) {
    this.store = store;
    this.ttlMs = ttlMs;
    this.staleIfErrorMs = staleIfErrorMs;
    this.maxEntries = maxEntries;
    this.lookupTimeoutMs = lookupTimeoutMs;
    this.onQuotaChange = onQuotaChange ?? (() => undefined);
    this.now = now;
    this.unsubscribe = store.onChange((event) => this.invalidate(event));
  }

  /** The caller behind `apiKey`, or null for a malformed, unknown or revoked key. Rejects only when the store fails. */
  async resolve(apiKey: string): Promise<Principal | null> {
    const parsed = parseApiKey(apiKey);
    if (!parsed.ok) return null;
    const hash = hashApiKey(parsed.key);
    const entry = this.cache.get(hash);
    if (entry && entry.expiresAt > this.now()) {
      this.stats.hits++;
      return entry.principal;
    }
    this.stats.misses++;
    let pending = this.inflight.get(hash);
    if (!pending) {
      // Concurrent first requests with one key share one lookup.
      const started = this.load(hash, entry);
      pending = started;
      this.inflight.set(hash, started);
      const settle = () => {
        if (this.inflight.get(hash) === started) this.inflight.delete(hash);
      };
      started.then(settle, settle);
    }
    return pending;
  }

  /** Forgets everything cached. */
  clear(): void {
    this.generation++;
    this.cache.clear();
    this.inflight.clear();
  }

  get size(): number {
    return this.cache.size;
  }

  close(): void {
    this.unsubscribe();
    this.clear();
  }

  private async load(hash: string, expired: Entry | undefined): Promise<Principal | null> {
    const generation = this.generation;
    let principal: Principal | null;
    try {
      principal = await withDeadline(this.lookup(hash), this.lookupTimeoutMs, 'key lookup');
    } catch (error) {
      // Only entries that merely aged out qualify: invalidated ones were deleted, never served stale.
      const now = this.now();
      if (expired && now < expired.staleUntil) {
        this.stats.staleServed++;
        // Keeps the following requests from each waiting on the failing store, without stretching staleUntil.
        if (generation === this.generation && this.cache.get(hash) === expired) expired.expiresAt = Math.min(now + RETRY_AFTER_FAILURE_MS, expired.staleUntil);
        return expired.principal;
      }
      throw error;
    }
    if (generation === this.generation) this.remember(hash, principal);
    return principal;
  }

  private async lookup(hash: string): Promise<Principal | null> {
    const key = await this.store.findKeyByHash(hash);
    // The store found the record by its hash; the constant-time comparison keeps that true of any store.
    if (!key || !sameHash(key.hash, hash) || key.revokedAt !== null) return null;
    const account = await this.store.getAccount(key.accountId);
    if (!account) return null;
    const plan = await this.store.getPlan(account.plan);
    const perMinute = account.perMinute ?? plan.perMinute;
    const perDay = account.perDay ?? plan.perDay;
    // Cannot happen through the account service (enterprise needs both numbers); without quotas nothing can be limited.
    if (perMinute === null || perDay === null) return null;
    return Object.freeze({ keyId: key.id, accountId: account.id, quotas: Object.freeze({ perMinute, perDay }) });
  }

  private remember(hash: string, principal: Principal | null): void {
    this.cache.delete(hash); // re-inserting moves it to the young end of the eviction order
    const expiresAt = this.now() + this.ttlMs;
    this.cache.set(hash, { principal, expiresAt, staleUntil: expiresAt + this.staleIfErrorMs });
    while (this.cache.size > this.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }

  private invalidate(event: ChangeEvent): void {
    // A lifted ban changes nothing the resolver knows.
    if (event.type === 'ban-lifted') return;
    if (event.type === 'reset') {
      // Nothing known changed, but events may have been missed: re-read every key on its next use,
      // yet keep the entries, so a store that is still coming back serves them stale instead of 503.
      this.generation++;
      this.inflight.clear();
      for (const entry of this.cache.values()) entry.expiresAt = 0;
      return;
    }
    if (event.type === 'key') {
      this.generation++;
      this.cache.delete(event.hash);
      this.inflight.delete(event.hash);
      return;
    }
    this.clear();
    try {
      this.onQuotaChange(event.type === 'account' ? event.accountId : null);
    } catch {
      // The hook is a courtesy to the limiter; it must not break invalidation.
    }
  }
}
