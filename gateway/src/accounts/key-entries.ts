import { sameHash } from '../keys/api-key';
import { LruMap } from './lru-map';
import { DEFAULT_KEY_ACCESS, type KeyResolution, type PlanName, type Principal } from './types';

/** What the principal resolver caches about one key hash. */
export interface KeyEntry<T> {
  value: T;
  expiresAt: number;
  /** Past this, the entry is not served even while the store fails. */
  staleUntil: number;
  /** The account the key belongs to, and its plan, as last read (null when the store knows no such key or account). */
  accountId: string | null;
  plan: PlanName | null;
}

/**
 * The principal resolver's two caches (valid keys; unknown and revoked ones, bounded apart so a
 * flood of minted keys evicts only its own kind) and the index of their entries by account, kept
 * in step through evictions.
 */
export class KeyEntries {
  readonly valid: LruMap<string, KeyEntry<Principal>>;
  readonly unknown: LruMap<string, KeyEntry<null>>;
  /** Account id → the hashes of its keys in either cache. */
  private readonly byAccount = new Map<string, Set<string>>();

  constructor(maxEntries: number, maxUnknownEntries: number) {
    this.valid = new LruMap(maxEntries, (hash, entry) => this.unindex(hash, entry));
    this.unknown = new LruMap(maxUnknownEntries, (hash, entry) => this.unindex(hash, entry));
  }

  /** Either cache's entry for `hash`, leaving the order as it is. */
  peek(hash: string): KeyEntry<Principal | null> | undefined {
    return this.valid.peek(hash) ?? this.unknown.peek(hash);
  }

  /** The hashes of one account's keys in either cache (a copy: forgetting them is safe while going through it). */
  hashesOf(accountId: string): string[] {
    return [...(this.byAccount.get(accountId) ?? [])];
  }

  clear(): void {
    this.valid.clear();
    this.unknown.clear();
    this.byAccount.clear();
  }

  /** Caches what the store answered about `hash`, in the cache of its kind, indexed by its account. */
  remember(hash: string, principal: Principal | null, entry: Omit<KeyEntry<unknown>, 'value'>): void {
    this.forget(hash);
    if (principal) this.valid.set(hash, { value: principal, ...entry });
    else this.unknown.set(hash, { value: null, ...entry });
    if (entry.accountId === null) return;
    const hashes = this.byAccount.get(entry.accountId);
    if (hashes) hashes.add(hash);
    else this.byAccount.set(entry.accountId, new Set([hash]));
  }

  /** Drops the key's entries from both caches and the index. */
  forget(hash: string): void {
    for (const cache of [this.valid, this.unknown] as LruMap<string, KeyEntry<unknown>>[]) {
      const entry = cache.peek(hash);
      if (!entry) continue;
      cache.delete(hash);
      this.unindex(hash, entry);
    }
  }

  private unindex(hash: string, { accountId }: KeyEntry<unknown>): void {
    if (accountId === null) return;
    const hashes = this.byAccount.get(accountId);
    hashes?.delete(hash);
    if (hashes?.size === 0) this.byAccount.delete(accountId);
  }

  /** The entries of one account's keys, in either cache. */
  *entriesOf(accountId: string): Generator<KeyEntry<unknown>> {
    for (const hash of this.byAccount.get(accountId) ?? []) {
      const entry = this.valid.peek(hash) ?? this.unknown.peek(hash);
      if (entry) yield entry;
    }
  }

  *all(): Generator<KeyEntry<unknown>> {
    yield* this.valid.values();
    yield* this.unknown.values();
  }
}

/** Whose key the store answered about (the index of account changes, and plan changes). */
export function ownerOf(hash: string, found: KeyResolution | null): Pick<KeyEntry<unknown>, 'accountId' | 'plan'> {
  if (!found || !sameHash(found.key.hash, hash)) return { accountId: null, plan: null };
  return { accountId: found.key.accountId, plan: found.account?.plan ?? null };
}

/** The caller behind a store answer, or null when the key must be refused. */
export function toPrincipal(hash: string, found: KeyResolution | null): Principal | null {
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
