import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../shared/src/errors';
import type { Plan } from '../accounts/types';
import { MAX_GRACE_PERIOD_SECONDS, MAX_NAME_LENGTH, type AccountDetails, type AccountService, type CreatedKey, type KeyView, type RolledKey, type WindowUsage } from '../admin/account-service';
import type { NewKeyInput } from '../admin/schemas';
import { parseRfc3339 } from '../admin/rfc3339';
import type { PortalSignup } from '../config';
import { KEY_ID_PATTERN } from '../keys/api-key';
import type { DailyCount, Limiter, WindowName } from '../limits/types';
import type { AttemptKind, AttemptLimits } from './attempt-limits';
import { checkEmail, checkNewPassword } from './credential-rules';
import type { PasswordHasher } from './passwords';
import type { ActiveSession, Sessions } from './sessions';
import type { PortalStore } from './store';

export type { KeyView };

/** Days in the dashboard's chart. */
export const CHART_DAYS = 30;
/** Active keys one account may hold: enough for every environment and rotation, not a key factory. */
export const MAX_ACTIVE_KEYS = 10;
/** How long an email stays reserved by a sign-up that never finishes (e.g. the process died half-way). */
const RESERVATION_MS = 60_000;

/** Something the person can fix or wait out, with the page status and the message shown to them. */
export class PortalRefusal extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 503,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'PortalRefusal';
  }
}

export interface Dashboard {
  account: AccountDetails;
  keys: KeyView[];
  history: DailyCount[];
  plans: Plan[];
}

export interface Credentials {
  email: string;
  password: string;
  /** The client's address, for the per-IP attempt limits. */
  ip: string;
}

export interface PortalServiceDeps {
  accounts: AccountService;
  limiter: Pick<Limiter, 'history'>;
  store: PortalStore;
  sessions: Sessions;
  hasher: PasswordHasher;
  attempts: AttemptLimits;
  signUp: PortalSignup;
}

const SAME_ANSWER = 'The email or password is incorrect.';

/**
 * The portal's use cases. Accounts and keys go through AccountService (the ops use cases), so a
 * portal account is an ordinary account and a revocation reaches every replica the same way.
 */
export class PortalService {
  constructor(private readonly deps: PortalServiceDeps) {}

  get signUpOpen(): boolean {
    return this.deps.signUp === 'open';
  }

  /** A new Free account with this email and password, and a session for it. */
  async signUp({ email: rawEmail, password, ip }: Credentials): Promise<{ token: string; session: ActiveSession }> {
    if (!this.signUpOpen) throw new PortalRefusal(403, 'Sign-up is closed on this deployment: ask the Animal Store team for an account.');
    await this.take('signUpPerIp', ip, 'Too many sign-ups from your network');
    const email = valid(checkEmail(rawEmail));
    valid(checkNewPassword(password, email));
    await this.take('signUpPerEmail', email, 'Too many sign-ups for this email');
    const taken = new PortalRefusal(409, 'An account with this email already exists: log in instead.');
    if (await this.deps.store.findCredential(email)) throw taken;

    const passwordHash = await this.deps.hasher.hash(password);
    const reservation = randomUUID();
    // The reservation, not the check above, is what stops two concurrent sign-ups from making two accounts.
    if (!(await this.deps.store.reserveEmail(email, reservation, RESERVATION_MS))) throw taken;
    try {
      const account = await this.deps.accounts.createAccount({ name: accountName(email), plan: 'free', email });
      const credential = { accountId: account.id, passwordHash, createdAt: account.createdAt };
      if (!(await this.deps.store.completeSignUp(email, reservation, credential))) {
        throw new PortalRefusal(503, 'The sign-up took too long to finish; please try again.');
      }
      return await this.deps.sessions.start(account.id);
    } catch (error) {
      await this.deps.store.releaseEmail(email, reservation).catch(() => undefined);
      throw error;
    }
  }

  /** A new session when the password is right; one answer, after the same work, for a wrong password and an unknown email. */
  async logIn({ email: rawEmail, password, ip }: Credentials): Promise<{ token: string; session: ActiveSession }> {
    await this.take('logInPerIp', ip, 'Too many log-in attempts from your network');
    if (rawEmail.trim() === '' || password === '') throw new PortalRefusal(400, 'Enter your email address and your password.');
    const checked = checkEmail(rawEmail);
    if (!checked.ok) throw new PortalRefusal(400, checked.message);
    const email = checked.value;
    await this.take('logInPerEmail', email, 'Too many log-in attempts for this email');

    const credential = await this.deps.store.findCredential(email);
    const matches = credential ? await this.deps.hasher.verify(password, credential.passwordHash) : await this.deps.hasher.verifyAgainstNothing(password);
    if (!credential || !matches) throw new PortalRefusal(401, SAME_ANSWER);
    await this.deps.attempts.forget('logInPerEmail', email);
    return this.deps.sessions.start(credential.accountId);
  }

  logOut(token: string | undefined): Promise<void> {
    return this.deps.sessions.end(token);
  }

  resume(token: string | undefined): Promise<ActiveSession | null> {
    return this.deps.sessions.resume(token);
  }

  /** Counts one portal request of this address. */
  async countRequest(ip: string): Promise<void> {
    await this.take('requestsPerIp', ip, 'Too many portal requests from your network');
  }

  async dashboard(accountId: string): Promise<Dashboard> {
    const [account, keys, history, plans] = await Promise.all([
      this.deps.accounts.getAccount(accountId),
      this.deps.accounts.listKeys(accountId),
      this.deps.limiter.history(accountId, CHART_DAYS),
      this.deps.accounts.listPlans(),
    ]);
    return { account, keys, history, plans };
  }

  /** The usage now, as the rate-limit headers give it (null for an account without quotas). */
  async usage(accountId: string): Promise<Record<WindowName, WindowUsage> | null> {
    return (await this.deps.accounts.getAccount(accountId)).usage;
  }

  /** A new key, with the name, access and expiry (RFC 3339) the form gave. */
  async createKey(accountId: string, input: NewKeyInput = {}): Promise<CreatedKey> {
    if (input.expiresAt !== undefined) {
      const at = parseRfc3339(input.expiresAt);
      if (at === null) throw new PortalRefusal(400, 'Enter the expiry as a date and a time (UTC), or leave it empty for a key that never expires.');
      if (at <= Date.now()) throw new PortalRefusal(400, 'The expiry must be in the future (times are UTC).');
    }
    // Expired keys no longer count: they work no more than revoked ones.
    const active = (await this.deps.accounts.listKeys(accountId)).filter((key) => key.revokedAt === null && !hasExpired(key));
    if (active.length >= MAX_ACTIVE_KEYS) {
      throw new PortalRefusal(409, `This account already has ${MAX_ACTIVE_KEYS} active keys, the most it may hold: revoke one you no longer use first.`);
    }
    return this.deps.accounts.createKey(accountId, portalActor(accountId), input).catch(asPortalRefusal);
  }

  /**
   * Rolls one of the account's own keys: a new key with the same name and access, the old one
   * working for `gracePeriodSeconds` more. Not counted against the active keys: it replaces one.
   */
  async rollKey(accountId: string, keyId: string, gracePeriodSeconds: number): Promise<RolledKey> {
    await this.ownKey(accountId, keyId);
    if (!Number.isInteger(gracePeriodSeconds) || gracePeriodSeconds < 0 || gracePeriodSeconds > MAX_GRACE_PERIOD_SECONDS) {
      throw new PortalRefusal(400, 'The grace period must be a whole number from 0 seconds to 7 days.');
    }
    return this.deps.accounts.rollKey(keyId, { gracePeriodSeconds }, portalActor(accountId)).catch(asPortalRefusal);
  }

  /** Only the account's own keys: another account's key id is answered as unknown. */
  async revokeKey(accountId: string, keyId: string): Promise<void> {
    await this.ownKey(accountId, keyId);
    await this.deps.accounts.revokeKey(keyId, portalActor(accountId));
  }

  async ownKey(accountId: string, keyId: string): Promise<KeyView> {
    const key = KEY_ID_PATTERN.test(keyId) ? (await this.deps.accounts.listKeys(accountId)).find((candidate) => candidate.id === keyId) : undefined;
    if (!key) throw new PortalRefusal(404, `Your account has no key with id "${keyId}".`);
    return key;
  }

  private async take(kind: AttemptKind, subject: string, what: string): Promise<void> {
    const waitSeconds = await this.deps.attempts.take(kind, subject);
    if (waitSeconds !== null) throw new PortalRefusal(429, `${what}: try again in ${describeWait(waitSeconds)}.`, waitSeconds);
  }
}

/** Whether a key's expiry has passed. */
export function hasExpired(key: Pick<KeyView, 'expiresAt'>, now = Date.now()): boolean {
  return key.expiresAt !== null && Date.parse(key.expiresAt) <= now;
}

/** The account service's refusals of what a person asked for (a bad name, a key that cannot be rolled), as the portal shows them. */
function asPortalRefusal(error: unknown): never {
  if (error instanceof ApiError && (error.status === 400 || error.status === 404 || error.status === 409)) throw new PortalRefusal(error.status, error.message);
  throw error;
}

/** Who made a change through the portal, for the audit trail: the account itself. */
function portalActor(accountId: string): string {
  return `portal:${accountId}`;
}

function valid<T>(checked: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!checked.ok) throw new PortalRefusal(400, checked.message);
  return checked.value;
}

/** The account's name in the ops tools: the email, cut to the name's maximum length. */
function accountName(email: string): string {
  const characters = [...email];
  return characters.length <= MAX_NAME_LENGTH ? email : `${characters.slice(0, MAX_NAME_LENGTH - 1).join('')}…`;
}

export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}
