import { ApiError } from '../../../shared/src/errors';
import { ACCOUNT_ID_PATTERN, KEY_ID_PATTERN, generateApiKey, hashApiKey, newAccountId, newKeyId } from '../keys/api-key';
import type { Limiter, Quotas, WindowName, WindowState } from '../limits/types';
import { PLAN_NAMES, type Account, type AccountStore, type Plan, type PlanName } from '../accounts/types';

/** What the ops use cases need from the limiter. */
export type UsageLimiter = Pick<Limiter, 'usage' | 'liftBan' | 'forgetAccount'>;

export const MAX_QUOTA = 1_000_000_000;
export const MAX_NAME_LENGTH = 100;

export interface NewAccountInput {
  name: string;
  plan: PlanName;
  /** The portal's log-in; ops-created accounts have none. */
  email?: string | null;
  perMinute?: number | null;
  perDay?: number | null;
}

/** Absent: unchanged; null: the override is cleared (the plan's number applies again). */
export interface AccountPatch {
  plan?: PlanName;
  perMinute?: number | null;
  perDay?: number | null;
}

export interface PlanNumbers {
  perMinute: number;
  perDay: number;
}

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
}

export interface CreatedKey {
  id: string;
  /** Shown this once; only its SHA-256 is stored. */
  key: string;
  accountId: string;
  createdAt: string;
}

export interface AccountServiceOptions {
  store: AccountStore;
  limiter: UsageLimiter;
  now?: () => number;
}

/**
 * The ops use cases (admin API and, through it, the CLI). Inputs are expected to have passed
 * the admin schemas (types, ranges, unknown fields); the rules that span fields or need the
 * store live here, so any caller (e.g. the demo account at start-up) gets them too.
 * Failures a client can fix are ApiErrors (invalid_body, not_found).
 */
export class AccountService {
  private readonly store: AccountStore;
  private readonly limiter: UsageLimiter;
  private readonly now: () => number;

  constructor({ store, limiter, now = Date.now }: AccountServiceOptions) {
    this.store = store;
    this.limiter = limiter;
    this.now = now;
  }

  async createAccount(input: NewAccountInput): Promise<AccountView> {
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
    return this.view(account);
  }

  async getAccount(id: string): Promise<AccountDetails> {
    const account = await this.requireAccount(id);
    const view = await this.view(account);
    if (view.perMinute === null || view.perDay === null) return { ...view, usage: null };
    const windows = await this.limiter.usage(account.id, { perMinute: view.perMinute, perDay: view.perDay }, this.now());
    return { ...view, usage: usageOf(windows, { perMinute: view.perMinute, perDay: view.perDay }, this.now()) };
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<AccountView> {
    const account = await this.requireAccount(id);
    const updated: Account = { ...account };
    if (patch.plan !== undefined) updated.plan = checkPlanName(patch.plan);
    if (patch.perMinute !== undefined) updated.perMinute = checkQuota('perMinute', patch.perMinute);
    if (patch.perDay !== undefined) updated.perDay = checkQuota('perDay', patch.perDay);
    requireEnterpriseNumbers(updated);
    await this.store.updateAccount(updated);
    // Other replicas hear of it through the store's change feed; this one needs no wait.
    this.limiter.forgetAccount(updated.id);
    return this.view(updated);
  }

  async createKey(accountId: string): Promise<CreatedKey> {
    const account = await this.requireAccount(accountId);
    const key = generateApiKey();
    const record = { id: newKeyId(), accountId: account.id, hash: hashApiKey(key), createdAt: this.isoNow(), revokedAt: null };
    await this.store.addKey(record);
    return { id: record.id, key, accountId: record.accountId, createdAt: record.createdAt };
  }

  /** Idempotent: revoking a revoked key succeeds and keeps the first revocation time. */
  async revokeKey(keyId: string): Promise<void> {
    const revoked = KEY_ID_PATTERN.test(keyId) && (await this.store.revokeKey(keyId, this.isoNow()));
    if (!revoked) throw notFound('key', keyId);
  }

  async liftBan(keyId: string): Promise<void> {
    const key = KEY_ID_PATTERN.test(keyId) ? await this.store.getKey(keyId) : null;
    if (!key) throw notFound('key', keyId);
    await this.limiter.liftBan({ accountId: key.accountId, keyId: key.id });
    // Other replicas cached the ban locally; the change feed tells them to let go of it.
    await this.store.announce({ type: 'ban-lifted', accountId: key.accountId, keyId: key.id });
  }

  listPlans(): Promise<Plan[]> {
    return this.store.listPlans();
  }

  /**
   * Enterprise has no plan numbers (each enterprise account carries its own), so setting them
   * is refused with invalid_body rather than silently giving every enterprise account a default.
   */
  async setPlan(name: string, numbers: PlanNumbers): Promise<Plan> {
    if (!(PLAN_NAMES as readonly string[]).includes(name)) throw new ApiError('not_found', `No plan named "${name}"; plans are ${PLAN_NAMES.join(', ')}.`);
    if (name === 'enterprise') {
      throw new ApiError('invalid_body', 'The enterprise plan has no numbers of its own: set perMinute and perDay on each enterprise account.');
    }
    const plan: Plan = { name: name as PlanName, perMinute: requireQuota('perMinute', numbers.perMinute), perDay: requireQuota('perDay', numbers.perDay) };
    await this.store.setPlan(plan);
    return plan;
  }

  private async requireAccount(id: string): Promise<Account> {
    const account = ACCOUNT_ID_PATTERN.test(id) ? await this.store.getAccount(id) : null;
    if (!account) throw notFound('account', id);
    return account;
  }

  private async view(account: Account): Promise<AccountView> {
    const plan = await this.store.getPlan(account.plan);
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

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }
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
