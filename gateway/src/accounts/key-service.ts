import { ApiError, serviceUnavailable } from '../../../shared/src/errors';
import type { ApiEnvironment } from '../../../shared/src/settings';
import type { AuditValues, NewAuditEntry } from '../audit/audit-log';
import { KEY_ID_PATTERN, generateApiKey, hashApiKey, newKeyId } from '../keys/api-key';
import { maskApiKey } from '../keys/masked-key';
import type { Limiter } from '../limits/types';
import { KeySetChangedError } from './errors';
import { keyEvent } from '../events/key-events';
import type { DomainEvent } from '../events/types';
import { DEFAULT_KEY_ACCESS, type Account, type ApiKeyRecord } from './types';
import type { ChangeFeed, KeyRecords } from './account-store';
import { keyViewOf, type CreatedKey, type KeyListQuery, type KeyPage, type KeyPosition, type RolledKey } from './account-views';
import { activeKeys, checkCreatedPerDay, type KeyLimits } from './key-limits';
import { notFound, notRollable } from './refusals';
import { parseRfc3339 } from './rfc3339';
import { DEFAULT_GRACE_PERIOD_SECONDS, validateKeyRoll, validateNewKey, type KeyRollInput, type NewKeyInput } from './schemas';

/** What the key use cases need from the limiter: a key's ban in force, and lifting it. */
export type BanLimiter = Pick<Limiter, 'bannedUntil' | 'liftBan'>;

/** Where keys' last-use times come from: the store, or (in the gateway) the recorder that merges this replica's unflushed uses. */
export interface KeyActivity {
  lastUsed(keyIds: readonly string[]): Promise<Map<string, number>>;
}

/**
 * What the key use cases share with the rest of the account service (which builds the one
 * KeyService and hands it its audit recording and account look-up, so both write one trail).
 */
export interface KeyServiceDeps {
  /** The keys, and the change feed a lifted ban is announced on. */
  store: KeyRecords & Pick<ChangeFeed, 'announce'>;
  limiter: BanLimiter;
  environment: ApiEnvironment;
  keyActivity: KeyActivity;
  keyLimits: KeyLimits;
  now: () => number;
  /** Records an audit entry (a failure to is logged, never thrown: the change stands). */
  record(entry: Omit<NewAuditEntry, 'at'>): Promise<void>;
  /** The account, or 404 not_found. */
  requireAccount(id: string): Promise<Account>;
  /** Tells the domain events (webhooks) of a change made; never throws, never waits. */
  publish(event: DomainEvent): void;
}

/**
 * How often a key write is decided again after another replica changed the account's keys meanwhile:
 * each round one writer wins, and once the limits are reached every writer is refused without writing.
 */
const KEY_WRITE_ATTEMPTS = 20;

/**
 * Runs `decide` (read the keys, check the limits, write with what was seen) again while the store
 * answers that the account's keys changed between the read and the write.
 */
async function untilUnchanged<T>(decide: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await decide();
    } catch (error) {
      if (!(error instanceof KeySetChangedError)) throw error;
      // Other replicas kept winning: a moment later this one will not (no bug, no 500).
      if (attempt >= KEY_WRITE_ATTEMPTS) throw serviceUnavailable("The account's keys are being changed elsewhere at this moment; try again in a second.");
    }
  }
}

/**
 * The key use cases of the account service: create, roll, list, revoke, lift a ban. Every key the
 * gateway writes is written here: the portal, the admin API, the CLI and the console all reach it
 * through `AccountService` (which builds the one instance and answers these use cases with it), so
 * the key limits (`key-limits.ts`), the audit entries and the removal of old revoked keys cannot be
 * skipped by any way in.
 *
 * Key changes of one account run one at a time in this process; across replicas the store writes a
 * key only if the account's keys are as they were read (`KeyRecords.addKey`'s `seen`), so
 * concurrent creations cannot all pass the caps: the loser decides again (`untilUnchanged`).
 * Inputs are checked with the admin schemas (`schemas.ts`); refusals a client can act on are worded
 * in `refusals.ts` and `key-limits.ts`.
 */
export class KeyService {
  private readonly keyWork = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: KeyServiceDeps) {}

  /**
   * A new key (shown this once), read-write and never expiring unless `input` says otherwise, within
   * the account's key limits: 400 invalid_parameter when it holds the most active keys (revoked,
   * expired and rolled-away keys do not count), 429 rate_limited (with Retry-After) when it has
   * created the most in the last 24 hours. Retired keys past their retention, or past the number
   * kept, are removed first.
   */
  async createKey(accountId: string, actor: string, input: NewKeyInput): Promise<CreatedKey> {
    const { name, access = DEFAULT_KEY_ACCESS, expiresAt } = validateNewKey(input);
    const account = await this.deps.requireAccount(accountId);
    const settings = {
      ...(name === undefined ? {} : { name: name.trim() }),
      access,
      ...(expiresAt === undefined ? {} : { expiresAt: this.futureTime('expiresAt', expiresAt) }),
    };
    return this.oneAtATime(account.id, () =>
      untilUnchanged(async () => {
        const now = this.deps.now();
        // The version first: a key added after it was read makes the write below refused.
        const seen = { version: await this.deps.store.keySetVersion(account.id) };
        const isoNow = new Date(now).toISOString();
        const keys = await this.pruneRetiredKeys(account.id, isoNow);
        const { active } = this.deps.keyLimits;
        if (activeKeys(keys, isoNow).length >= active) {
          throw new ApiError('invalid_parameter', `Account ${account.id} already has ${active} active keys, the most an account may hold: revoke one it no longer uses first.`);
        }
        checkCreatedPerDay(account.id, keys, now, this.deps.keyLimits);
        const { key, record } = this.newKey(account.id, settings, now);
        // Written only if no key was added since the list was read (on another replica, say).
        await this.deps.store.addKey(record, seen);
        await this.deps.record({ actor, action: 'key.created', target: record.id, accountId: account.id, before: null, after: keyValues(record) });
        this.deps.publish(keyEvent('key.created', record, now));
        return this.created(key, record);
      }),
    );
  }

  /**
   * Rolls a key: a new key for the same account with the same name and access (never expiring),
   * and the old key set to expire at the end of the grace period (sooner if it already expired
   * sooner), naming its replacement; one atomic store write, heard by every replica through the
   * change feed. A revoked, expired or already rolled key is not rolled: 409 conflict, saying why
   * and what to do instead.
   */
  async rollKey(keyId: string, input: KeyRollInput, actor: string): Promise<RolledKey> {
    const { gracePeriodSeconds: grace = DEFAULT_GRACE_PERIOD_SECONDS } = validateKeyRoll(input);
    const old = KEY_ID_PATTERN.test(keyId) ? await this.deps.store.getKey(keyId) : null;
    if (!old) throw notFound('key', keyId);
    // A roll makes a key: it counts against the keys an account may create in a day (rolling the
    // replacement again and again would otherwise be a key factory), but not against the active
    // keys, since the old one is on its way out.
    return this.oneAtATime(old.accountId, () => untilUnchanged(async () => {
      const now = this.deps.now();
      const seen = { version: await this.deps.store.keySetVersion(old.accountId) };
      checkCreatedPerDay(old.accountId, await this.deps.store.listKeys(old.accountId), now, this.deps.keyLimits);
      const { key, record } = this.newKey(old.accountId, { ...(old.name === undefined ? {} : { name: old.name }), access: old.access ?? DEFAULT_KEY_ACCESS }, now);
      const expiresAt = new Date(now + grace * 1000).toISOString();
      const rolled = await this.deps.store.rollKey({ keyId: old.id, replacement: record, expiresAt, at: new Date(now).toISOString(), seen });
      if (rolled.outcome !== 'rolled') throw notRollable(keyId, rolled);
      const { accountId } = record;
      // Rolled with no grace, the old key is retired at once: the rule keeps the retired ones bounded.
      await this.pruneRetiredKeys(accountId, new Date(now).toISOString());
      await this.deps.record({ actor, action: 'key.created', target: record.id, accountId, before: null, after: { ...keyValues(record), rolledFrom: old.id } });
      await this.deps.record({
        actor,
        action: 'key.rolled',
        target: old.id,
        accountId,
        before: { expiresAt: old.expiresAt ?? null, replacedBy: null },
        after: { expiresAt: rolled.key.expiresAt ?? null, replacedBy: record.id },
      });
      // One event for the roll (not key.created as well): the old key, its new expiry and its replacement.
      this.deps.publish(keyEvent('key.rolled', old, now, { expiresAt: rolled.key.expiresAt ?? null, replacedBy: record.id }));
      return { ...this.created(key, record), replaces: { id: old.id, expiresAt: rolled.key.expiresAt! } };
    }));
  }

  /**
   * A page of the account's keys, oldest first, retired ones included until the rule removes them
   * (which it does first, so a listing never shows one past its retention), with when each was last
   * used and any ban in force. The whole list when `query` has no limit.
   */
  async listKeys(accountId: string, { limit, after }: KeyListQuery = {}): Promise<KeyPage> {
    const account = await this.deps.requireAccount(accountId);
    const now = this.deps.now();
    const isoNow = new Date(now).toISOString();
    // An account holds a few dozen keys at most (the key limits and this rule): paged here, not in the store.
    const following = (await this.pruneRetiredKeys(account.id, isoNow)).filter((key) => after === undefined || isAfter(key, after));
    const keys = limit === undefined ? following : following.slice(0, limit);
    const last = keys[keys.length - 1];
    const next = keys.length < following.length && last ? { createdAtMs: Date.parse(last.createdAt), id: last.id } : null;
    const [lastUsed, bans] = await Promise.all([
      this.deps.keyActivity.lastUsed(keys.map((key) => key.id)),
      // A revoked or expired key is refused before the limiter is asked: any ban it had no longer matters.
      Promise.all(keys.map((key) => (key.revokedAt === null && !(key.expiresAt !== undefined && key.expiresAt <= isoNow) ? this.deps.limiter.bannedUntil({ accountId: account.id, keyId: key.id }, now) : null))),
    ]);
    return { keys: keys.map((key, i) => keyViewOf(key, lastUsed.get(key.id), bans[i] ?? null)), next };
  }

  /** Idempotent: revoking a revoked key succeeds and keeps the first revocation time (and records nothing). */
  async revokeKey(keyId: string, actor: string): Promise<void> {
    const key = KEY_ID_PATTERN.test(keyId) ? await this.deps.store.getKey(keyId) : null;
    const at = this.isoNow();
    if (!key || !(await this.deps.store.revokeKey(key.id, at))) throw notFound('key', keyId);
    if (key.revokedAt === null) {
      await this.deps.record({ actor, action: 'key.revoked', target: key.id, accountId: key.accountId, before: { revokedAt: null }, after: { revokedAt: at } });
      this.deps.publish(keyEvent('key.revoked', key, Date.parse(at)));
      // The retired keys an account keeps stay bounded even if it never creates another.
      await this.oneAtATime(key.accountId, () => this.pruneRetiredKeys(key.accountId, this.isoNow()));
    }
  }

  /**
   * Removes the account's retired keys past their retention or beyond the number kept (the store
   * applies the one rule, retired-keys.ts) and answers the keys that remain. Housekeeping, not a
   * change anyone made: no audit entry; the trail keeps the key's creation, revocation or roll.
   */
  private pruneRetiredKeys(accountId: string, isoNow: string): Promise<ApiKeyRecord[]> {
    return this.deps.store.pruneRetiredKeys(accountId, isoNow, this.deps.keyLimits);
  }

  /** Runs `work` after any earlier key work of the same account in this process has finished. */
  private oneAtATime<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.keyWork.get(accountId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.keyWork.set(accountId, settled);
    void settled.then(() => {
      if (this.keyWork.get(accountId) === settled) this.keyWork.delete(accountId);
    });
    return next;
  }

  async liftBan(keyId: string, actor: string): Promise<void> {
    const key = KEY_ID_PATTERN.test(keyId) ? await this.deps.store.getKey(keyId) : null;
    if (!key) throw notFound('key', keyId);
    const bannedUntil = await this.deps.limiter.bannedUntil({ accountId: key.accountId, keyId: key.id }, this.deps.now());
    await this.deps.limiter.liftBan({ accountId: key.accountId, keyId: key.id });
    // Other replicas cached the ban locally; the change feed tells them to let go of it.
    await this.deps.store.announce({ type: 'ban-lifted', accountId: key.accountId, keyId: key.id });
    await this.deps.record({
      actor,
      action: 'ban.lifted',
      target: key.id,
      accountId: key.accountId,
      before: { bannedUntil: bannedUntil === null ? null : new Date(bannedUntil).toISOString() },
      after: { bannedUntil: null },
    });
  }

  /**
   * A new key of this environment and its record, made at `now`: the caller's one reading of the
   * clock, so that a roll's grace period ends exactly `gracePeriodSeconds` after the new key's
   * `createdAt` (two readings were a millisecond apart now and then).
   */
  private newKey(accountId: string, settings: Pick<ApiKeyRecord, 'name' | 'access' | 'expiresAt'>, now: number): { key: string; record: ApiKeyRecord } {
    const key = generateApiKey(this.deps.environment);
    return { key, record: { id: newKeyId(), accountId, hash: hashApiKey(key), createdAt: new Date(now).toISOString(), revokedAt: null, masked: maskApiKey(key), ...settings } };
  }

  private created(key: string, record: ApiKeyRecord): CreatedKey {
    return {
      id: record.id,
      key,
      accountId: record.accountId,
      createdAt: record.createdAt,
      environment: this.deps.environment,
      name: record.name ?? null,
      access: record.access ?? DEFAULT_KEY_ACCESS,
      expiresAt: record.expiresAt ?? null,
    };
  }

  /** An RFC 3339 time after now, as the store keeps times (UTC, `toISOString`, so they compare as strings). */
  private futureTime(field: string, text: string): string {
    const at = parseRfc3339(text);
    if (at === null) throw new ApiError('invalid_body', `${field} must be an RFC 3339 date and time with its time zone, e.g. 2030-01-31T12:00:00Z; got "${text}".`);
    if (at <= this.deps.now()) throw new ApiError('invalid_body', `${field} must be in the future: ${new Date(at).toISOString()} has passed (it is now ${this.isoNow()}).`);
    return new Date(at).toISOString();
  }

  private isoNow(): string {
    return new Date(this.deps.now()).toISOString();
  }
}

/** Whether `key` comes after `position` in the order keys are listed (sort.ts: oldest first, then by id). */
function isAfter(key: ApiKeyRecord, position: KeyPosition): boolean {
  const createdAtMs = Date.parse(key.createdAt);
  return createdAtMs === position.createdAtMs ? key.id > position.id : createdAtMs > position.createdAtMs;
}

/** What the audit trail records of a new key: never the key, nor its hash. */
function keyValues(record: ApiKeyRecord): AuditValues {
  return { masked: record.masked ?? null, name: record.name ?? null, access: record.access ?? DEFAULT_KEY_ACCESS, expiresAt: record.expiresAt ?? null };
}

