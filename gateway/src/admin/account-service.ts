import type { Logger } from 'pino';
import { ApiError } from '../../../shared/src/errors';
import { DEFAULT_API_ENVIRONMENT, type ApiEnvironment } from '../../../shared/src/settings';
import { MemoryAuditLog, type AuditLog, type AuditValues, type NewAuditEntry } from '../audit/audit-log';
import { ACCOUNT_ID_PATTERN, KEY_ID_PATTERN, generateApiKey, hashApiKey, newAccountId, newKeyId } from '../keys/api-key';
import { maskApiKey } from '../keys/masked-key';
import type { Limiter } from '../limits/types';
import { normaliseSearch } from '../accounts/search';
import {
  DEFAULT_GRACE_PERIOD_SECONDS,
  validateAccountPatch,
  validateKeyRoll,
  validateNewAccount,
  validateNewKey,
  validatePlanNumbers,
  type AccountPatch,
  type KeyRollInput,
  type NewAccountInput,
  type NewKeyInput,
  type PlanNumbers,
} from './schemas';
import { parseRfc3339 } from './rfc3339';
import { keyViewOf, usageOf, viewOf, type AccountDetails, type AccountListQuery, type AccountView, type AccountViewPage, type CreatedKey, type KeyView, type RolledKey } from './account-views';
import { KEY_LIMITS, activeKeys, checkCreatedPerDay, revokedKeysToRemove, type KeyLimits } from './key-limits';
import { notFound, notRollable } from './refusals';
import {
  DEFAULT_KEY_ACCESS,
  PLAN_NAMES,
  PLAN_WITHOUT_NUMBERS,
  type Account,
  type AccountStore,
  type ApiKeyRecord,
  type Plan,
  type PlanName,
} from '../accounts/types';

/** What the ops use cases need from the limiter. */
export type UsageLimiter = Pick<Limiter, 'usage' | 'history' | 'bannedUntil' | 'liftBan' | 'forgetAccount'>;

/** Where keys' last-use times come from: the store, or (in the gateway) the recorder that merges this replica's unflushed uses. */
export interface KeyActivity {
  lastUsed(keyIds: readonly string[]): Promise<Map<string, number>>;
}

/** The actor of changes the gateway makes by itself (e.g. the demo account at start-up) or callers that name none. */
export const SYSTEM_ACTOR = 'system';

/** Days of accepted-request history shown with an account. */
export const HISTORY_DAYS_SHOWN = 30;

export interface AccountServiceOptions {
  store: AccountStore;
  limiter: UsageLimiter;
  /** The deployment's API_ENVIRONMENT: which keys `createKey` issues. */
  environment?: ApiEnvironment;
  /** Where every change is recorded (default: in process). */
  audit?: AuditLog;
  /** Default: the store's recorded times. */
  keyActivity?: KeyActivity;
  /** Told when a change was made but its audit entry could not be written. */
  logger?: Pick<Logger, 'error'>;
  /** Tests lower them; production uses KEY_LIMITS. */
  keyLimits?: Partial<KeyLimits>;
  now?: () => number;
}

/**
 * The ops use cases (admin API and, through it, the CLI and the console). Inputs are checked with
 * the admin schemas (`schemas.ts`, where every rule of a single field is stated: types, ranges,
 * unknown fields), so any caller (e.g. the demo account at start-up, the portal) gets them too; the
 * rules that span fields or need the store live here.
 * Failures a client can fix are ApiErrors (invalid_body, not_found).
 *
 * Every change is recorded in the audit trail here, with the `actor` the caller names, so no way
 * in can skip it. The entry is written after the change: if that write fails the change stands
 * (answering an error would invite a retry that repeats it) and the entry goes to the error log.
 */
export class AccountService {
  private readonly store: AccountStore;
  private readonly limiter: UsageLimiter;
  private readonly environment: ApiEnvironment;
  private readonly audit: AuditLog;
  private readonly keyActivity: KeyActivity;
  private readonly logger: Pick<Logger, 'error'> | undefined;
  private readonly keyLimits: KeyLimits;
  /** Key changes of one account, one at a time in this process, so concurrent creations cannot all pass the caps. */
  private readonly keyWork = new Map<string, Promise<unknown>>();
  private readonly now: () => number;

  constructor({ store, limiter, environment = DEFAULT_API_ENVIRONMENT, audit, keyActivity, logger, keyLimits = {}, now = Date.now }: AccountServiceOptions) {
    this.store = store;
    this.limiter = limiter;
    this.environment = environment;
    this.audit = audit ?? new MemoryAuditLog();
    this.keyActivity = keyActivity ?? { lastUsed: (keyIds) => store.keysLastUsed(keyIds) };
    this.logger = logger;
    this.keyLimits = { ...KEY_LIMITS, ...keyLimits };
    this.now = now;
  }

  async createAccount(input: NewAccountInput, actor = SYSTEM_ACTOR): Promise<AccountView> {
    const { email = null, ...body } = input;
    const { name, plan, perMinute = null, perDay = null } = validateNewAccount(body);
    const account: Account = { id: newAccountId(), name: name.trim(), plan, perMinute, perDay, email, createdAt: this.isoNow() };
    requireEnterpriseNumbers(account);
    await this.store.createAccount(account);
    const { id, createdAt: _createdAt, ...values } = account;
    await this.record({ actor, action: 'account.created', target: id, accountId: id, before: null, after: values });
    return this.view(account);
  }

  async getAccount(id: string): Promise<AccountDetails> {
    const account = await this.requireAccount(id);
    const view = await this.view(account);
    const history = this.limiter.history(account.id, HISTORY_DAYS_SHOWN, this.now());
    if (view.perMinute === null || view.perDay === null) return { ...view, usage: null, history: await history };
    const quotas = { perMinute: view.perMinute, perDay: view.perDay };
    const windows = await this.limiter.usage(account.id, quotas, this.now());
    return { ...view, usage: usageOf(windows, quotas, this.now()), history: await history };
  }

  /** Accounts oldest first, optionally of one plan and matching a search text, one page at a time. */
  async listAccounts({ limit, after, plan, search }: AccountListQuery): Promise<AccountViewPage> {
    const normalised = search === undefined ? undefined : normaliseSearch(search);
    const [page, plans] = await Promise.all([
      this.store.listAccounts({ limit, ...(after ? { after } : {}), ...(plan ? { plan } : {}), ...(normalised ? { search: normalised } : {}) }),
      this.store.listPlans(),
    ]);
    return { accounts: page.accounts.map((account) => viewOf(account, plans.find((p) => p.name === account.plan)!)), next: page.next };
  }

  async updateAccount(id: string, patch: AccountPatch, actor = SYSTEM_ACTOR): Promise<AccountView> {
    const account = await this.requireAccount(id);
    const updated: Account = { ...account, ...validateAccountPatch(patch) };
    requireEnterpriseNumbers(updated);
    await this.store.updateAccount(updated);
    // Other replicas hear of it through the store's change feed; this one needs no wait.
    this.limiter.forgetAccount(updated.id);
    const changed = (['plan', 'perMinute', 'perDay'] as const).filter((field) => account[field] !== updated[field]);
    if (changed.length > 0) {
      const pick = (from: Account): AuditValues => Object.fromEntries(changed.map((field) => [field, from[field]]));
      await this.record({ actor, action: 'account.updated', target: id, accountId: id, before: pick(account), after: pick(updated) });
    }
    return this.view(updated);
  }

  /**
   * A new key (shown this once), read-write and never expiring unless `input` says otherwise, within
   * the account's key limits: 400 invalid_parameter when it holds the most active keys (revoked,
   * expired and rolled-away keys do not count), 429 rate_limited (with Retry-After) when it has
   * created the most in the last 24 hours. Revoked keys past their retention, or past the number
   * kept, are removed first.
   */
  async createKey(accountId: string, actor = SYSTEM_ACTOR, input: NewKeyInput = {}): Promise<CreatedKey> {
    const { name, access = DEFAULT_KEY_ACCESS, expiresAt } = validateNewKey(input);
    const account = await this.requireAccount(accountId);
    const settings = {
      ...(name === undefined ? {} : { name: name.trim() }),
      access,
      ...(expiresAt === undefined ? {} : { expiresAt: this.futureTime('expiresAt', expiresAt) }),
    };
    return this.oneAtATime(account.id, async () => {
      const keys = await this.store.listKeys(account.id);
      const now = this.now();
      await this.removeOldRevokedKeys(keys, now);
      const isoNow = new Date(now).toISOString();
      const { active } = this.keyLimits;
      if (activeKeys(keys, isoNow).length >= active) {
        throw new ApiError('invalid_parameter', `Account ${account.id} already has ${active} active keys, the most an account may hold: revoke one it no longer uses first.`);
      }
      checkCreatedPerDay(account.id, keys, now, this.keyLimits);
      const { key, record } = this.newKey(account.id, settings);
      await this.store.addKey(record);
      await this.record({ actor, action: 'key.created', target: record.id, accountId: account.id, before: null, after: keyValues(record) });
      return this.created(key, record);
    });
  }

  /**
   * Rolls a key: a new key for the same account with the same name and access (never expiring),
   * and the old key set to expire at the end of the grace period (sooner if it already expired
   * sooner), naming its replacement; one atomic store write, heard by every replica through the
   * change feed. A revoked, expired or already rolled key is not rolled: 409 conflict, saying why
   * and what to do instead.
   */
  async rollKey(keyId: string, input: KeyRollInput = {}, actor = SYSTEM_ACTOR): Promise<RolledKey> {
    const { gracePeriodSeconds: grace = DEFAULT_GRACE_PERIOD_SECONDS } = validateKeyRoll(input);
    const old = KEY_ID_PATTERN.test(keyId) ? await this.store.getKey(keyId) : null;
    if (!old) throw notFound('key', keyId);
    // A roll makes a key: it counts against the keys an account may create in a day (rolling the
    // replacement again and again would otherwise be a key factory), but not against the active
    // keys, since the old one is on its way out.
    return this.oneAtATime(old.accountId, async () => {
      const now = this.now();
      checkCreatedPerDay(old.accountId, await this.store.listKeys(old.accountId), now, this.keyLimits);
      const { key, record } = this.newKey(old.accountId, { ...(old.name === undefined ? {} : { name: old.name }), access: old.access ?? DEFAULT_KEY_ACCESS });
      const expiresAt = new Date(now + grace * 1000).toISOString();
      const rolled = await this.store.rollKey({ keyId: old.id, replacement: record, expiresAt, at: new Date(now).toISOString() });
      if (rolled.outcome !== 'rolled') throw notRollable(keyId, rolled);
      const { accountId } = record;
      await this.record({ actor, action: 'key.created', target: record.id, accountId, before: null, after: { ...keyValues(record), rolledFrom: old.id } });
      await this.record({
        actor,
        action: 'key.rolled',
        target: old.id,
        accountId,
        before: { expiresAt: old.expiresAt ?? null, replacedBy: null },
        after: { expiresAt: rolled.key.expiresAt ?? null, replacedBy: record.id },
      });
      return { ...this.created(key, record), replaces: { id: old.id, expiresAt: rolled.key.expiresAt! } };
    });
  }

  /** The account's keys, revoked ones included, oldest first, with when each was last used and any ban in force. */
  async listKeys(accountId: string): Promise<KeyView[]> {
    const account = await this.requireAccount(accountId);
    const keys = await this.store.listKeys(account.id);
    const now = this.now();
    const isoNow = new Date(now).toISOString();
    const [lastUsed, bans] = await Promise.all([
      this.keyActivity.lastUsed(keys.map((key) => key.id)),
      // A revoked or expired key is refused before the limiter is asked: any ban it had no longer matters.
      Promise.all(keys.map((key) => (key.revokedAt === null && !(key.expiresAt !== undefined && key.expiresAt <= isoNow) ? this.limiter.bannedUntil({ accountId: account.id, keyId: key.id }, now) : null))),
    ]);
    return keys.map((key, i) => keyViewOf(key, lastUsed.get(key.id), bans[i] ?? null));
  }

  /** Idempotent: revoking a revoked key succeeds and keeps the first revocation time (and records nothing). */
  async revokeKey(keyId: string, actor = SYSTEM_ACTOR): Promise<void> {
    const key = KEY_ID_PATTERN.test(keyId) ? await this.store.getKey(keyId) : null;
    const at = this.isoNow();
    if (!key || !(await this.store.revokeKey(key.id, at))) throw notFound('key', keyId);
    if (key.revokedAt === null) {
      await this.record({ actor, action: 'key.revoked', target: key.id, accountId: key.accountId, before: { revokedAt: null }, after: { revokedAt: at } });
      // The revoked keys an account keeps stay bounded even if it never creates another.
      await this.oneAtATime(key.accountId, async () => this.removeOldRevokedKeys(await this.store.listKeys(key.accountId), this.now()));
    }
  }

  /**
   * Removes the revoked keys among `keys` that are past their retention or beyond the number kept
   * (oldest revocations first). Housekeeping, not a change anyone made: no audit entry; the trail
   * keeps the key's creation and revocation.
   */
  private async removeOldRevokedKeys(keys: readonly ApiKeyRecord[], now: number): Promise<void> {
    for (const key of revokedKeysToRemove(keys, now, this.keyLimits)) await this.store.removeRevokedKey(key.id);
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

  async liftBan(keyId: string, actor = SYSTEM_ACTOR): Promise<void> {
    const key = KEY_ID_PATTERN.test(keyId) ? await this.store.getKey(keyId) : null;
    if (!key) throw notFound('key', keyId);
    const bannedUntil = await this.limiter.bannedUntil({ accountId: key.accountId, keyId: key.id }, this.now());
    await this.limiter.liftBan({ accountId: key.accountId, keyId: key.id });
    // Other replicas cached the ban locally; the change feed tells them to let go of it.
    await this.store.announce({ type: 'ban-lifted', accountId: key.accountId, keyId: key.id });
    await this.record({
      actor,
      action: 'ban.lifted',
      target: key.id,
      accountId: key.accountId,
      before: { bannedUntil: bannedUntil === null ? null : new Date(bannedUntil).toISOString() },
      after: { bannedUntil: null },
    });
  }

  listPlans(): Promise<Plan[]> {
    return this.store.listPlans();
  }

  /**
   * Enterprise has no plan numbers (each enterprise account carries its own), so setting them
   * is refused with invalid_body rather than silently giving every enterprise account a default.
   */
  async setPlan(name: string, numbers: PlanNumbers, actor = SYSTEM_ACTOR): Promise<Plan> {
    if (!(PLAN_NAMES as readonly string[]).includes(name)) throw new ApiError('not_found', `No plan named "${name}"; plans are ${PLAN_NAMES.join(', ')}.`);
    if (name === PLAN_WITHOUT_NUMBERS) {
      throw new ApiError('invalid_body', `The ${PLAN_WITHOUT_NUMBERS} plan has no numbers of its own: set perMinute and perDay on each ${PLAN_WITHOUT_NUMBERS} account.`);
    }
    const { perMinute, perDay } = validatePlanNumbers(numbers);
    const plan: Plan = { name: name as PlanName, perMinute, perDay };
    const before = await this.store.getPlan(plan.name);
    await this.store.setPlan(plan);
    if (before.perMinute !== plan.perMinute || before.perDay !== plan.perDay) {
      await this.record({
        actor,
        action: 'plan.updated',
        target: plan.name,
        accountId: null,
        before: { perMinute: before.perMinute, perDay: before.perDay },
        after: { perMinute: plan.perMinute, perDay: plan.perDay },
      });
    }
    return plan;
  }

  /** A new key of this environment and its record, made now. */
  private newKey(accountId: string, settings: Pick<ApiKeyRecord, 'name' | 'access' | 'expiresAt'>): { key: string; record: ApiKeyRecord } {
    const key = generateApiKey(this.environment);
    return { key, record: { id: newKeyId(), accountId, hash: hashApiKey(key), createdAt: this.isoNow(), revokedAt: null, masked: maskApiKey(key), ...settings } };
  }

  private created(key: string, record: ApiKeyRecord): CreatedKey {
    return {
      id: record.id,
      key,
      accountId: record.accountId,
      createdAt: record.createdAt,
      environment: this.environment,
      name: record.name ?? null,
      access: record.access ?? DEFAULT_KEY_ACCESS,
      expiresAt: record.expiresAt ?? null,
    };
  }

  /** An RFC 3339 time after now, as the store keeps times (UTC, `toISOString`, so they compare as strings). */
  private futureTime(field: string, text: string): string {
    const at = parseRfc3339(text);
    if (at === null) throw new ApiError('invalid_body', `${field} must be an RFC 3339 date and time with its time zone, e.g. 2030-01-31T12:00:00Z; got "${text}".`);
    if (at <= this.now()) throw new ApiError('invalid_body', `${field} must be in the future: ${new Date(at).toISOString()} has passed (it is now ${this.isoNow()}).`);
    return new Date(at).toISOString();
  }

  private async requireAccount(id: string): Promise<Account> {
    const account = ACCOUNT_ID_PATTERN.test(id) ? await this.store.getAccount(id) : null;
    if (!account) throw notFound('account', id);
    return account;
  }

  private async view(account: Account): Promise<AccountView> {
    return viewOf(account, await this.store.getPlan(account.plan));
  }

  private async record(entry: Omit<NewAuditEntry, 'at'>): Promise<void> {
    const complete: NewAuditEntry = { at: this.isoNow(), ...entry };
    try {
      await this.audit.record(complete);
    } catch (err) {
      this.logger?.error({ err, audit: complete }, 'audit entry not recorded (the change itself was made)');
    }
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }
}

/** What the audit trail records of a new key: never the key, nor its hash. */
function keyValues(record: ApiKeyRecord): AuditValues {
  return { masked: record.masked ?? null, name: record.name ?? null, access: record.access ?? DEFAULT_KEY_ACCESS, expiresAt: record.expiresAt ?? null };
}

function requireEnterpriseNumbers(account: Account): void {
  if (account.plan !== PLAN_WITHOUT_NUMBERS) return;
  for (const field of ['perMinute', 'perDay'] as const) {
    if (account[field] === null) throw new ApiError('invalid_body', `${field} is required for an ${PLAN_WITHOUT_NUMBERS} account (${PLAN_WITHOUT_NUMBERS} has no plan numbers).`);
  }
}

