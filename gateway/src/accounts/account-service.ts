import type { Logger } from 'pino';
import { ApiError } from '../../../shared/src/errors';
import { DEFAULT_API_ENVIRONMENT, type ApiEnvironment } from '../../../shared/src/settings';
import type { AuditLog, AuditValues, NewAuditEntry } from '../audit/audit-log';
import { ACCOUNT_ID_PATTERN, newAccountId } from '../keys/api-key';
import type { Limiter } from '../limits/types';
import { normaliseSearch } from './search';
import { PLAN_NAMES, PLAN_WITHOUT_NUMBERS, type Account, type Plan, type PlanName } from './types';
import type { AccountRecords, KeyUseRecords, PlanRecords } from './account-store';
import { usageOf, viewOf, type AccountDetails, type AccountListQuery, type AccountView, type AccountViewPage, type CreatedKey, type KeyListQuery, type KeyPage, type KeyView, type RolledKey } from './account-views';
import { KEY_LIMITS, type KeyLimits } from './key-limits';
import { KeyService, type BanLimiter, type KeyActivity, type KeyServiceDeps } from './key-service';
import { notFound } from './refusals';
import type { DomainEvent } from '../events/types';
import {
  validateAccountPatch,
  validateNewAccount,
  validatePlanNumbers,
  type AccountPatch,
  type KeyRollInput,
  type NewAccountInput,
  type NewKeyInput,
  type PlanNumbers,
} from './schemas';

/** What the ops use cases need from the limiter: the account's windows and history, and the key use cases' bans. */
export type UsageLimiter = Pick<Limiter, 'usage' | 'history' | 'forgetAccount'> & BanLimiter;

/** The parts of the account store the account use cases use. */
export type AccountServiceStore = AccountRecords & PlanRecords & KeyServiceDeps['store'] & Pick<KeyUseRecords, 'keysLastUsed'>;

/** The actor of changes the gateway makes by itself (e.g. the demo account at start-up) or callers that name none. */
export const SYSTEM_ACTOR = 'system';

/** Days of accepted-request history shown with an account. */
export const HISTORY_DAYS_SHOWN = 30;

export interface AccountServiceOptions {
  /** Accounts and plans, what the key use cases need (`KeyServiceDeps.store`), and keys' recorded last use. */
  store: AccountServiceStore;
  limiter: UsageLimiter;
  /** The deployment's API_ENVIRONMENT: which keys `createKey` issues. */
  environment?: ApiEnvironment;
  /** Where every change is recorded (`Stores.audit`). */
  audit: AuditLog;
  /** Default: the store's recorded times. */
  keyActivity?: KeyActivity;
  /** Told when a change was made but its audit entry could not be written. */
  logger?: Pick<Logger, 'error'>;
  /** Tests lower them; production uses KEY_LIMITS. */
  keyLimits?: Partial<KeyLimits>;
  now?: () => number;
  /** Where key changes are told as domain events (the gateway's EventBus); default: nowhere. */
  events?: { publish(event: DomainEvent): void };
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
  private readonly store: AccountServiceStore;
  private readonly limiter: UsageLimiter;
  private readonly audit: AuditLog;
  private readonly logger: Pick<Logger, 'error'> | undefined;
  private readonly keys: KeyService;
  private readonly now: () => number;

  constructor({ store, limiter, environment = DEFAULT_API_ENVIRONMENT, audit, keyActivity, logger, keyLimits = {}, now = Date.now, events }: AccountServiceOptions) {
    this.store = store;
    this.limiter = limiter;
    this.audit = audit;
    this.logger = logger;
    this.now = now;
    this.keys = new KeyService({
      store,
      limiter,
      environment,
      keyActivity: keyActivity ?? { lastUsed: (keyIds) => store.keysLastUsed(keyIds) },
      keyLimits: { ...KEY_LIMITS, ...keyLimits },
      now,
      record: (entry) => this.record(entry),
      requireAccount: (id) => this.requireAccount(id),
      publish: (event) => events?.publish(event),
    });
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
   * the account's key limits (`KeyService.createKey`).
   */
  createKey(accountId: string, actor = SYSTEM_ACTOR, input: NewKeyInput = {}): Promise<CreatedKey> {
    return this.keys.createKey(accountId, actor, input);
  }

  /** Rolls a key: a new one, the old one working for a grace period (`KeyService.rollKey`). */
  rollKey(keyId: string, input: KeyRollInput = {}, actor = SYSTEM_ACTOR): Promise<RolledKey> {
    return this.keys.rollKey(keyId, input, actor);
  }

  /** A page of the account's keys, oldest first, retired ones included (`KeyService.listKeys`). */
  listKeyPage(accountId: string, query: KeyListQuery): Promise<KeyPage> {
    return this.keys.listKeys(accountId, query);
  }

  /** All the account's keys, retired ones included, oldest first, with when each was last used and any ban in force. */
  async listKeys(accountId: string): Promise<KeyView[]> {
    return (await this.keys.listKeys(accountId)).keys;
  }

  /** Idempotent: revoking a revoked key succeeds and keeps the first revocation time (and records nothing). */
  revokeKey(keyId: string, actor = SYSTEM_ACTOR): Promise<void> {
    return this.keys.revokeKey(keyId, actor);
  }

  liftBan(keyId: string, actor = SYSTEM_ACTOR): Promise<void> {
    return this.keys.liftBan(keyId, actor);
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

function requireEnterpriseNumbers(account: Account): void {
  if (account.plan !== PLAN_WITHOUT_NUMBERS) return;
  for (const field of ['perMinute', 'perDay'] as const) {
    if (account[field] === null) throw new ApiError('invalid_body', `${field} is required for an ${PLAN_WITHOUT_NUMBERS} account (${PLAN_WITHOUT_NUMBERS} has no plan numbers).`);
  }
}

