import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../shared/src/errors';
import { STARTER_PLAN } from '../accounts/types';
import type { AccountService } from '../accounts/account-service';
import { MAX_NAME_LENGTH } from '../accounts/schemas';
import type { PortalSignup } from '../config';
import type { AttemptGate, TakenAttempt } from './attempt-gate';
import type { AttemptKind } from './attempt-limits';
import { checkEmail, checkNewPassword, latinLookAlike, logInEmails } from './credential-rules';
import type { DeviceCookies } from './device-cookies';
import type { PasswordHasher } from './passwords';
import { valid } from './portal-refusal';
import type { ActiveSession, Sessions } from './sessions';
import type { PortalStore } from './store';

/** How long an email stays reserved by a sign-up that never finishes (e.g. the process died half-way). */
const RESERVATION_MS = 60_000;

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

export interface SignInDeps {
  accounts: Pick<AccountService, 'createAccount'>;
  store: PortalStore;
  sessions: Sessions;
  hasher: PasswordHasher;
  gate: AttemptGate;
  devices: DeviceCookies;
  signUp: PortalSignup;
  slowdown?: LogInSlowdown;
  /** Runs for a new account before its credential is written (its email profile): a failure fails the sign-up. */
  prepareAccount?: (accountId: string) => Promise<void>;
}

const SAME_ANSWER = 'The email or password is incorrect.';

/** How a person gets a session: a sign-up (a new account) or a log-in (an existing one). */
export class SignIn {
  constructor(private readonly deps: SignInDeps) {}

  get signUpOpen(): boolean {
    return this.deps.signUp === 'open';
  }

  /** A new Free account with this email and password, and a session for it. */
  async signUp({ email: rawEmail, password, ip }: Credentials): Promise<StartedSession> {
    if (!this.signUpOpen) throw new ApiError('forbidden', 'Sign-up is closed on this deployment: ask the Animal Store team for an account.');
    const { gate } = this.deps;
    await gate.take('signUpPerAddress', gate.addressOf(ip), 'Too many sign-ups from your network');
    const email = valid(checkEmail(rawEmail));
    valid(checkNewPassword(password, email));
    await gate.take('signUpPerEmail', email, 'Too many sign-ups for this email');
    const taken = new ApiError('conflict', 'An account with this email already exists: log in instead.');
    if (await this.deps.store.findCredential(email)) throw taken;
    const printsAs = latinLookAlike(email);
    if (printsAs !== undefined && (await this.deps.store.findCredential(printsAs))) {
      throw new ApiError('conflict', `This address prints like ${printsAs}, which already has an account: use an address of your own.`);
    }

    const passwordHash = await this.deps.hasher.hash(password);
    const reservation = randomUUID();
    // The reservation, not the check above, is what stops two concurrent sign-ups from making two accounts.
    if (!(await this.deps.store.reserveEmail(email, reservation, RESERVATION_MS))) throw taken;
    try {
      // Recorded in the portal's own audit stream, like the account's later changes to itself.
      const account = await this.deps.accounts.createAccount({ name: accountName(email), plan: STARTER_PLAN, email }, PORTAL_SIGN_UP_ACTOR);
      await this.deps.prepareAccount?.(account.id);
      const credential = { accountId: account.id, passwordHash, createdAt: account.createdAt };
      if (!(await this.deps.store.completeSignUp(email, reservation, credential))) {
        throw new ApiError('service_unavailable', 'The sign-up took too long to finish; please try again.');
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
    if (rawEmail.trim() === '' || password === '') throw new ApiError('invalid_body', 'Enter your email address and your password.');
    // The canonical form first; an account made before it existed is found under its old form.
    const forms = valid(logInEmails(rawEmail));
    const email = forms[0]!;
    const { gate } = this.deps;
    const address = gate.addressOf(ip);
    const deviceId = this.deps.devices.verify(device, email);

    const reserved: TakenAttempt[] = [];
    const reserve = async (kind: AttemptKind, subject: string, what: string) => {
      try {
        await gate.take(kind, subject, what);
      } catch (refusal) {
        await gate.giveBack(reserved);
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
      await gate.giveBack(reserved);
      throw error;
    }
    if (accountId === undefined) {
      await gate.attempts.charge('logInFailuresPerEmail', email);
      throw new ApiError('unauthorized', SAME_ANSWER);
    }
    await gate.giveBack(reserved);
    return { ...(await this.deps.sessions.start(accountId)), device: this.deps.devices.issue(email, deviceId) };
  }

  /** Waits before checking a password for an email that has failed more often than allowed. */
  private async slowDown(email: string): Promise<void> {
    const { attempts } = this.deps.gate;
    const failures = await attempts.counted('logInFailuresPerEmail', email);
    const delayMs = slowdownFor(failures, attempts.allowed('logInFailuresPerEmail'), this.deps.slowdown ?? LOG_IN_SLOWDOWN);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}

/** The actor of a sign-up in the audit trail (the account has no id yet when it is made). */
const PORTAL_SIGN_UP_ACTOR = 'portal';

/** The account's name in the ops tools: the email, cut to the name's maximum length. */
function accountName(email: string): string {
  const characters = [...email];
  return characters.length <= MAX_NAME_LENGTH ? email : `${characters.slice(0, MAX_NAME_LENGTH - 1).join('')}…`;
}
