import type { Plan } from '../accounts/types';
import type { AccountService } from '../accounts/account-service';
import type { AccountDetails, CreatedKey, KeyPosition, KeyView, RolledKey, WindowUsage } from '../accounts/account-views';
import type { NewKeyInput } from '../accounts/schemas';
import type { PortalSignup } from '../config';
import type { DailyCount, Limiter, WindowName } from '../limits/types';
import type { AccountEmails, EmailStatus } from './account-emails';
import { AttemptGate } from './attempt-gate';
import type { AttemptLimits } from './attempt-limits';
import type { DeviceCookies } from './device-cookies';
import type { PasswordHasher } from './passwords';
import { PortalKeys } from './portal-keys';
import type { ActiveSession, Sessions } from './sessions';
import { SignIn, type Credentials, type LogInSlowdown, type StartedSession } from './sign-in';
import type { PortalStore } from './store';

/** Days in the dashboard's chart. */
export const CHART_DAYS = 30;

/** Keys on one page of the dashboard: ten, the most active keys an account may hold. */
export const KEYS_PER_PAGE = 10;

export interface Dashboard {
  account: AccountDetails;
  /** One page of the account's keys, oldest first. */
  keys: KeyView[];
  /** Where the next page of keys starts; null on the last page. */
  nextKeys: KeyPosition | null;
  history: DailyCount[];
  plans: Plan[];
  email: EmailStatus;
}

export interface PortalServiceDeps {
  accounts: AccountService;
  limiter: Pick<Limiter, 'history'>;
  store: PortalStore;
  sessions: Sessions;
  hasher: PasswordHasher;
  attempts: AttemptLimits;
  devices: DeviceCookies;
  signUp: PortalSignup;
  /** `ANON_IPV6_PREFIX_LENGTH`: IPv6 clients share every per-address limit per network of this many bits, as on /v1. */
  ipv6PrefixLength: number;
  slowdown?: LogInSlowdown;
  /** Verification, password reset and the quota emails' switch. */
  emails: AccountEmails;
}

/**
 * The portal's use cases, the one entry the routes call: signing in (`SignIn`), the account's keys
 * (`PortalKeys`), and here the session, the request count and the dashboard. Accounts and keys go
 * through AccountService (the ops use cases), so a portal account is an ordinary account.
 */
export class PortalService {
  private readonly gate: AttemptGate;
  private readonly signIn: SignIn;
  private readonly keys: PortalKeys;

  constructor(private readonly deps: PortalServiceDeps) {
    this.gate = new AttemptGate(deps.attempts, deps.ipv6PrefixLength);
    this.signIn = new SignIn({ ...deps, gate: this.gate, prepareAccount: (accountId) => deps.emails.prepare(accountId) });
    this.keys = new PortalKeys(deps.accounts);
  }

  get signUpOpen(): boolean {
    return this.signIn.signUpOpen;
  }

  get emails(): AccountEmails {
    return this.deps.emails;
  }

  addressOf(ip: string): string {
    return this.gate.addressOf(ip);
  }

  async signUp(credentials: Credentials): Promise<StartedSession> {
    const started = await this.signIn.signUp(credentials);
    // Not a reason to fail the sign-up: the dashboard offers to send the link again.
    await this.deps.emails.sendVerification(started.session.accountId).catch(() => undefined);
    return started;
  }

  logIn(credentials: Credentials): Promise<StartedSession> {
    return this.signIn.logIn(credentials);
  }

  logOut(token: string | undefined): Promise<void> {
    return this.deps.sessions.end(token);
  }

  resume(token: string | undefined): Promise<ActiveSession | null> {
    return this.deps.sessions.resume(token);
  }

  /** Counts one portal request of this address (IPv6: of its network). */
  async countRequest(ip: string): Promise<void> {
    await this.gate.take('requestsPerAddress', this.gate.addressOf(ip), 'Too many portal requests from your network');
  }

  /** The dashboard, with the page of keys after `keysAfter` (the first page without it). */
  async dashboard(accountId: string, keysAfter?: KeyPosition): Promise<Dashboard> {
    const [account, keyPage, history, plans, email] = await Promise.all([
      this.deps.accounts.getAccount(accountId),
      this.deps.accounts.listKeyPage(accountId, { limit: KEYS_PER_PAGE, ...(keysAfter ? { after: keysAfter } : {}) }),
      this.deps.limiter.history(accountId, CHART_DAYS),
      this.deps.accounts.listPlans(),
      this.deps.emails.status(accountId),
    ]);
    return { account, keys: keyPage.keys, nextKeys: keyPage.next, history, plans, email };
  }

  /** The usage now, as the rate-limit headers give it (null for an account without quotas). */
  async usage(accountId: string): Promise<Record<WindowName, WindowUsage> | null> {
    return (await this.deps.accounts.getAccount(accountId)).usage;
  }

  async createKey(accountId: string, input?: NewKeyInput): Promise<CreatedKey> {
    await this.deps.emails.requireVerified(accountId);
    return this.keys.createKey(accountId, input);
  }

  /** Rolling makes a new key: it waits for the verification as creating one does. */
  async rollKey(accountId: string, keyId: string, gracePeriodSeconds: number): Promise<RolledKey> {
    await this.deps.emails.requireVerified(accountId);
    return this.keys.rollKey(accountId, keyId, gracePeriodSeconds);
  }

  revokeKey(accountId: string, keyId: string): Promise<void> {
    return this.keys.revokeKey(accountId, keyId);
  }

  ownKey(accountId: string, keyId: string): Promise<KeyView> {
    return this.keys.ownKey(accountId, keyId);
  }
}
