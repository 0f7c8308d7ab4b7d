import type { Logger } from 'pino';
import { ApiError } from '../../../shared/src/errors';
import { DEFAULT_API_ENVIRONMENT, type ApiEnvironment } from '../../../shared/src/settings';
import { MemoryAuditLog, type AuditLog, type AuditValues, type NewAuditEntry } from '../audit/audit-log';
import { ACCOUNT_ID_PATTERN, KEY_ID_PATTERN, generateApiKey, hashApiKey, newAccountId, newKeyId } from '../keys/api-key';
import { maskApiKey } from '../keys/masked-key';
import type { DailyCount, Limiter, Quotas, WindowName, WindowState } from '../limits/types';
import { normaliseSearch } from '../accounts/search';
import type { AccountPatch, NewAccountInput, PlanNumbers } from './schemas';
import { PLAN_NAMES, type Account, type AccountPosition, type AccountStore, type ApiKeyRecord, type Plan, type PlanName } from '../accounts/types';

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

/**
 * What one account may do with keys, on every path (portal, admin API, CLI, console): a key is
 * cheap to make and each one costs the store, the caches and the audit trail something, so one
 * account (a portal sign-up in particular) must not be a key factory, nor keep every key it ever
 * revoked. Revoked keys are kept a while (listings and the audit trail name them) and then removed.
 */
export interface KeyLimits {
  /** Keys created in any 24 hours. */
  createdPerDay: number;
  /** Active (unrevoked) keys held at once. */
  active: number;
  /** Revoked keys kept; past it, the oldest revoked ones are removed. */
  revokedKept: number;
  /** A revoked key is removed this long after its revocation. */
  revokedRetentionMs: number;
}

export const KEY_LIMITS: Readonly<KeyLimits> = Object.freeze({ createdPerDay: 20, active: 10, revokedKept: 20, revokedRetentionMs: 30 * 86_400_000 });

const DAY_MS = 86_400_000;

export const MAX_QUOTA = 1_000_000_000;
export const MAX_NAME_LENGTH = 100;

/** An account as the ops API shows it: effective quotas first, the per-account overrides beside them. */
export interface AccountView {
  id: string;
  name: string;
  plan: PlanName;
  perMinute: number | null;
  perDay: number | null;
  overrides: { perMinute: number | null; perDay: number | null };
  email: string | null;
  createdAt: string;
}

export interface WindowUsage {
  used: number;
  limit: number;
  remaining: number;
  /** ISO 8601, UTC. */
  resetAt: string;
}

export interface AccountDetails extends AccountView {
  usage: Record<WindowName, WindowUsage> | null;
  /** Accepted requests per UTC day, the last HISTORY_DAYS_SHOWN days ending today, oldest first. */
  history: DailyCount[];
}

/** An account's key as ops see it: never the key itself. */
export interface KeyView {
  id: string;
  /** `ask_live_…Ab12`; null for keys created before masked forms were kept. */
  masked: string | null;
  createdAt: string;
  revokedAt: string | null;
  /** ISO 8601; a few seconds' resolution (see docs/operations.md); null if never used. */
  lastUsedAt: string | null;
  /** ISO 8601 end of a temporary ban in force; null when not banned. */
  bannedUntil: string | null;
}

export interface AccountListQuery {
  limit: number;
  after?: AccountPosition;
  plan?: PlanName;
  /** Matched inside the name or the email, without regard to case. */
  search?: string;
}

export interface AccountViewPage {
  accounts: AccountView[];
  next: AccountPosition | null;
}

export interface CreatedKey {
  id: string;
  /** Shown this once; only its SHA-256 is stored. */
  key: string;
  accountId: string;
  createdAt: string;
  /** Where the key works: this deployment's environment (`ask_live_` production, `ask_test_` staging). */
  environment: ApiEnvironment;
}

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
 * The ops use cases (admin API and, through it, the CLI and the console). Inputs are expected to
 * have passed the admin schemas (types, ranges, unknown fields); the rules that span fields or need
 * the store live here, so any caller (e.g. the demo account at start-up) gets them too.
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
    const name = checkName(input.name);
    const plan = checkPlanName(input.plan);
    const account: Account = {
      id: newAccountId(),
      name,
      plan,
      perMinute: checkQuota('perMinute', input.perMinute ?? null),
      perDay: checkQuota('perDay', input.perDay ?? null),
      email: input.email ?? null,
      createdAt: this.isoNow(),
    };
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
    const updated: Account = { ...account };
    if (patch.plan !== undefined) updated.plan = checkPlanName(patch.plan);
    if (patch.perMinute !== undefined) updated.perMinute = checkQuota('perMinute', patch.perMinute);
    if (patch.perDay !== undefined) updated.perDay = checkQuota('perDay', patch.perDay);
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
   * A new key, within the account's key limits: 400 invalid_parameter when it holds the most active
   * keys, 429 rate_limited (with Retry-After) when it has created the most in the last 24 hours.
   * Revoked keys past their retention, or past the number kept, are removed first.
   */
  async createKey(accountId: string, actor = SYSTEM_ACTOR): Promise<CreatedKey> {
    const account = await this.requireAccount(accountId);
    return this.oneAtATime(account.id, async () => {
      const keys = await this.store.listKeys(account.id);
      const now = this.now();
      await this.removeOldRevokedKeys(keys, now);
      const limits = this.keyLimits;
      if (keys.filter((key) => key.revokedAt === null).length >= limits.active) {
        throw new ApiError('invalid_parameter', `Account ${account.id} already has ${limits.active} active keys, the most an account may hold: revoke one it no longer uses first.`);
      }
      // Removed keys count too: they were created.
      const createdToday = keys.map((key) => Date.parse(key.createdAt)).filter((at) => now - at < DAY_MS);
      if (createdToday.length >= limits.createdPerDay) {
        const seconds = Math.max(1, Math.ceil((Math.min(...createdToday) + DAY_MS - now) / 1000));
        throw new ApiError('rate_limited', `Account ${account.id} has created ${limits.createdPerDay} keys in the last 24 hours, the most it may: the next one can be created in ${describeSeconds(seconds)}.`, { 'Retry-After': String(seconds) });
      }
      return this.addKey(account, actor);
    });
  }

  private async addKey(account: Account, actor: string): Promise<CreatedKey> {
    const key = generateApiKey(this.environment);
    const record: ApiKeyRecord = { id: newKeyId(), accountId: account.id, hash: hashApiKey(key), createdAt: this.isoNow(), revokedAt: null, masked: maskApiKey(key) };
    await this.store.addKey(record);
    await this.record({ actor, action: 'key.created', target: record.id, accountId: account.id, before: null, after: { masked: record.masked! } });
    return { id: record.id, key, accountId: record.accountId, createdAt: record.createdAt, environment: this.environment };
  }

  /** The account's keys, revoked ones included, oldest first, with when each was last used and any ban in force. */
  async listKeys(accountId: string): Promise<KeyView[]> {
    const account = await this.requireAccount(accountId);
    const keys = await this.store.listKeys(account.id);
    const now = this.now();
    const [lastUsed, bans] = await Promise.all([
      this.keyActivity.lastUsed(keys.map((key) => key.id)),
      // A revoked key is refused before the limiter is asked: any ban it had no longer matters.
      Promise.all(keys.map((key) => (key.revokedAt === null ? this.limiter.bannedUntil({ accountId: account.id, keyId: key.id }, now) : null))),
    ]);
    return keys.map((key, i) => {
      const used = lastUsed.get(key.id);
      const bannedUntil = bans[i];
      return {
        id: key.id,
        masked: key.masked ?? null,
        createdAt: key.createdAt,
        revokedAt: key.revokedAt,
        lastUsedAt: used === undefined ? null : new Date(used).toISOString(),
        bannedUntil: bannedUntil === null || bannedUntil === undefined ? null : new Date(bannedUntil).toISOString(),
      };
    });
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
    const { revokedKept, revokedRetentionMs } = this.keyLimits;
    const revoked = keys.filter((key) => key.revokedAt !== null).sort((a, b) => Date.parse(b.revokedAt!) - Date.parse(a.revokedAt!));
    const expired = revoked.filter((key, i) => i >= revokedKept || now - Date.parse(key.revokedAt!) >= revokedRetentionMs);
    for (const key of expired) await this.store.removeRevokedKey(key.id);
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
    if (name === 'enterprise') {
      throw new ApiError('invalid_body', 'The enterprise plan has no numbers of its own: set perMinute and perDay on each enterprise account.');
    }
    const plan: Plan = { name: name as PlanName, perMinute: requireQuota('perMinute', numbers.perMinute), perDay: requireQuota('perDay', numbers.perDay) };
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

function describeSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes < 120 ? `${minutes} minutes` : `${Math.ceil(minutes / 60)} hours`;
}

function viewOf(account: Account, plan: Plan): AccountView {
  return {
    id: account.id,
    name: account.name,
    plan: account.plan,
    perMinute: account.perMinute ?? plan.perMinute,
    perDay: account.perDay ?? plan.perDay,
    overrides: { perMinute: account.perMinute, perDay: account.perDay },
    email: account.email,
    createdAt: account.createdAt,
  };
}

function notFound(what: 'account' | 'key', id: string): ApiError {
  return new ApiError('not_found', `No ${what} with id "${id}".`);
}

function checkName(name: string): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed === '') throw new ApiError('invalid_body', 'name must not be empty or only white space.');
  if ([...trimmed].length > MAX_NAME_LENGTH) throw new ApiError('invalid_body', `name must have at most ${MAX_NAME_LENGTH} characters.`);
  return trimmed;
}

function checkPlanName(plan: string): PlanName {
  if (!(PLAN_NAMES as readonly string[]).includes(plan)) throw new ApiError('invalid_body', `plan must be one of ${PLAN_NAMES.map((p) => `"${p}"`).join(', ')}.`);
  return plan as PlanName;
}

function checkQuota(field: 'perMinute' | 'perDay', value: number | null): number | null {
  if (value === null) return null;
  if (!Number.isInteger(value) || value < 1 || value > MAX_QUOTA) {
    throw new ApiError('invalid_body', `${field} must be an integer from 1 to ${MAX_QUOTA}.`);
  }
  return value;
}

function requireQuota(field: 'perMinute' | 'perDay', value: number | null | undefined): number {
  const quota = checkQuota(field, value ?? null);
  if (quota === null) throw new ApiError('invalid_body', `${field} is required.`);
  return quota;
}

function requireEnterpriseNumbers(account: Account): void {
  if (account.plan !== 'enterprise') return;
  for (const field of ['perMinute', 'perDay'] as const) {
    if (account[field] === null) throw new ApiError('invalid_body', `${field} is required for an enterprise account (enterprise has no plan numbers).`);
  }
}

function usageOf(windows: WindowState[], quotas: Quotas, now: number): Record<WindowName, WindowUsage> {
  const one = (name: WindowName, limit: number): WindowUsage => {
    const state = windows.find((window) => window.name === name);
    if (!state) return { used: 0, limit, remaining: limit, resetAt: new Date(defaultReset(name, now)).toISOString() };
    return {
      used: Math.max(0, state.limit - state.remaining),
      limit: state.limit,
      remaining: state.remaining,
      resetAt: new Date(state.resetAtMs).toISOString(),
    };
  };
  return { minute: one('minute', quotas.perMinute), day: one('day', quotas.perDay) };
}

/** Only used if a limiter reports no state for a window: nothing counted yet, reset at the window's natural end. */
function defaultReset(name: WindowName, now: number): number {
  if (name === 'minute') return now + 60_000;
  const midnight = new Date(now);
  midnight.setUTCHours(24, 0, 0, 0);
  return midnight.getTime();
}
