import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../shared/src/errors';
import { STARTER_PLAN, type Plan } from '../accounts/types';
import type { AccountService } from '../admin/account-service';
import type { AccountDetails, CreatedKey, KeyView, RolledKey, WindowUsage } from '../admin/account-views';
import { MAX_NAME_LENGTH, validateKeyRoll, type NewKeyInput } from '../admin/schemas';
import { parseRfc3339 } from '../admin/rfc3339';
import type { PortalSignup } from '../config';
import { KEY_ID_PATTERN } from '../keys/api-key';
import { clientSubject } from '../limits/client-subject';
import type { DailyCount, Limiter, WindowName } from '../limits/types';
import type { AttemptKind, AttemptLimits } from './attempt-limits';
import { checkEmail, checkNewPassword, logInEmails } from './credential-rules';
import type { DeviceCookies } from './device-cookies';
import type { PasswordHasher } from './passwords';
import type { ActiveSession, Sessions } from './sessions';
import type { PortalStore } from './store';

export type { KeyView };

/** Days in the dashboard's chart. */
export const CHART_DAYS = 30;
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
  /** The client's address, for the per-address attempt limits (IPv6 counted per network). */
  ip: string;
  /** The browser's device cookie, if it sent one (`DeviceCookies`). */
  device?: string;
}

/** A session started by a log-in or a sign-up, and the device cookie the browser keeps for next time. */
export interface StartedSession {
  token: string;
  session: ActiveSession;
  device: string;
}

/**
 * How log-ins for an email that has failed too often are slowed down (never refused): each attempt
 * past the allowance waits `stepMs` more, up to `maxMs`, before its password is checked. The owner,
 * from a new browser, still gets in, seconds later; from a browser with the device cookie, at once.
 */
export interface LogInSlowdown {
  stepMs: number;
  maxMs: number;
}

export const LOG_IN_SLOWDOWN: LogInSlowdown = Object.freeze({ stepMs: 500, maxMs: 5_000 });

/** The delay of an attempt on an email with `failures` counted, when `allowed` pass without one. */
export function slowdownFor(failures: number, allowed: number, { stepMs, maxMs }: LogInSlowdown): number {
  return failures < allowed ? 0 : Math.min(maxMs, (failures - allowed + 1) * stepMs);
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
  async signUp({ email: rawEmail, password, ip }: Credentials): Promise<StartedSession> {
    if (!this.signUpOpen) throw new PortalRefusal(403, 'Sign-up is closed on this deployment: ask the Animal Store team for an account.');
    await this.take('signUpPerAddress', this.addressOf(ip), 'Too many sign-ups from your network');
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
      // Recorded in the portal's own audit stream, like the account's later changes to itself.
      const account = await this.deps.accounts.createAccount({ name: accountName(email), plan: STARTER_PLAN, email }, PORTAL_SIGN_UP_ACTOR);
      const credential = { accountId: account.id, passwordHash, createdAt: account.createdAt };
      if (!(await this.deps.store.completeSignUp(email, reservation, credential))) {
        throw new PortalRefusal(503, 'The sign-up took too long to finish; please try again.');
      }
      return { ...(await this.deps.sessions.start(account.id)), device: this.deps.devices.issue(email) };
    } catch (error) {
      await this.deps.store.releaseEmail(email, reservation).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A new session when the password is right; one answer, after the same work, for a wrong password
   * and an unknown email. Only failures count: each rule reserves an attempt before the password is
   * checked (so a burst of concurrent guesses cannot overrun it) and gives it back on success. A
   * stranger's attempt is limited per address and per email and address, and slowed down (never
   * refused) per email; a browser with the email's device cookie is limited only per device.
   */
  async logIn({ email: rawEmail, password, ip, device }: Credentials): Promise<StartedSession> {
    if (rawEmail.trim() === '' || password === '') throw new PortalRefusal(400, 'Enter your email address and your password.');
    // The canonical form first; an account made before it existed is found under its old form.
    const forms = valid(logInEmails(rawEmail));
    const email = forms[0]!;
    const address = this.addressOf(ip);
    const deviceId = this.deps.devices.verify(device, email);

    const reserved: Array<[AttemptKind, string]> = [];
    const reserve = async (kind: AttemptKind, subject: string, what: string) => {
      try {
        await this.take(kind, subject, what);
      } catch (refusal) {
        await this.giveBack(reserved);
        throw refusal;
      }
      reserved.push([kind, subject]);
    };
    if (deviceId !== undefined) {
      await reserve('logInFailuresPerDevice', deviceId, 'Too many failed log-ins from this browser');
    } else {
      await reserve('logInFailuresPerAddress', address, 'Too many failed log-ins from your network');
      await reserve('logInFailuresPerEmailAndAddress', `${address} ${email}`, 'Too many failed log-ins for this email from your network');
      await this.slowDown(email);
    }

    let accountId: string | undefined;
    try {
      let credential = null;
      for (const form of forms) if (!credential) credential = await this.deps.store.findCredential(form);
      const matches = credential ? await this.deps.hasher.verify(password, credential.passwordHash) : await this.deps.hasher.verifyAgainstNothing(password);
      if (credential && matches) accountId = credential.accountId;
    } catch (error) {
      // Not a failure of the person's (store down, hasher busy): nothing stays counted.
      await this.giveBack(reserved);
      throw error;
    }
    if (accountId === undefined) {
      await this.deps.attempts.charge('logInFailuresPerEmail', email);
      throw new PortalRefusal(401, SAME_ANSWER);
    }
    await this.giveBack(reserved);
    return { ...(await this.deps.sessions.start(accountId)), device: this.deps.devices.issue(email, deviceId) };
  }

  logOut(token: string | undefined): Promise<void> {
    return this.deps.sessions.end(token);
  }

  resume(token: string | undefined): Promise<ActiveSession | null> {
    return this.deps.sessions.resume(token);
  }

  /** Counts one portal request of this address (IPv6: of its network). */
  async countRequest(ip: string): Promise<void> {
    await this.take('requestsPerAddress', this.addressOf(ip), 'Too many portal requests from your network');
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

  /**
   * A new key, with the name, access and expiry (RFC 3339) the form gave, within the key limits every
   * path has (`KEY_LIMITS`): a refusal is shown on the dashboard.
   */
  async createKey(accountId: string, input: NewKeyInput = {}): Promise<CreatedKey> {
    if (input.expiresAt !== undefined) {
      const at = parseRfc3339(input.expiresAt);
      if (at === null) throw new PortalRefusal(400, 'Enter the expiry as a date and a time (UTC), or leave it empty for a key that never expires.');
      if (at <= Date.now()) throw new PortalRefusal(400, 'The expiry must be in the future (times are UTC).');
    }
    return this.deps.accounts.createKey(accountId, portalActor(accountId), input).catch(asPortalRefusal);
  }

  /**
   * Rolls one of the account's own keys: a new key with the same name and access, the old one
   * working for `gracePeriodSeconds` more. Not counted against the active keys: it replaces one.
   */
  async rollKey(accountId: string, keyId: string, gracePeriodSeconds: number): Promise<RolledKey> {
    await this.ownKey(accountId, keyId);
    try {
      validateKeyRoll({ gracePeriodSeconds });
    } catch {
      // The admin schema's rule, in the portal's words.
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

  /** Who every per-address limit counts a client as: the same subject as /v1's anonymous limit. */
  private addressOf(ip: string): string {
    return clientSubject(ip, this.deps.ipv6PrefixLength);
  }

  /** Waits before checking a password for an email that has failed more often than allowed. */
  private async slowDown(email: string): Promise<void> {
    const failures = await this.deps.attempts.counted('logInFailuresPerEmail', email);
    const delayMs = slowdownFor(failures, this.deps.attempts.allowed('logInFailuresPerEmail'), this.deps.slowdown ?? LOG_IN_SLOWDOWN);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  }

  private async giveBack(reserved: ReadonlyArray<[AttemptKind, string]>): Promise<void> {
    await Promise.all(reserved.map(([kind, subject]) => this.deps.attempts.giveBack(kind, subject)));
  }

  private async take(kind: AttemptKind, subject: string, what: string): Promise<void> {
    const waitSeconds = await this.deps.attempts.take(kind, subject);
    if (waitSeconds !== null) throw new PortalRefusal(429, `${what}: try again in ${describeWait(waitSeconds)}.`, waitSeconds);
  }
}

/** The actor of a sign-up in the audit trail (the account has no id yet when it is made). */
const PORTAL_SIGN_UP_ACTOR = 'portal';

/** Whether a key's expiry has passed. */
export function hasExpired(key: Pick<KeyView, 'expiresAt'>, now = Date.now()): boolean {
  return key.expiresAt !== null && Date.parse(key.expiresAt) <= now;
}

/**
 * The account service's refusals of what a person asked for, as the portal shows them: a bad name,
 * a key that cannot be rolled, the key limits (the most active keys held: 409; the most created in
 * a day: 429 with when to try again).
 */
function asPortalRefusal(error: unknown): never {
  if (!(error instanceof ApiError)) throw error;
  const retryAfter = error.headers['Retry-After'];
  const message = error.message.replace(/^Account \S+ (already )?has/, 'This account $1has');
  if (error.code === 'rate_limited') throw new PortalRefusal(429, message, retryAfter === undefined ? undefined : Number(retryAfter));
  if (error.code === 'invalid_parameter' && /active keys/.test(error.message)) throw new PortalRefusal(409, message);
  if (error.status === 400 || error.status === 404 || error.status === 409) throw new PortalRefusal(error.status, error.message);
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
