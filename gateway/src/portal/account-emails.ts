import type { AccountService } from '../accounts/account-service';
import type { MailLinks } from '../mail/links';
import type { Mailer } from '../mail/mailer';
import { passwordResetEmail, verificationEmail } from '../mail/messages';
import type { AttemptGate } from './attempt-gate';
import { checkNewPassword, logInEmails } from './credential-rules';
import { EmailLinks, type UnsubscribeSignatures } from './email-links';
import { LEGACY_PROFILE, NEW_PROFILE, type EmailProfile, type PortalEmailStore } from './email-store';
import type { PasswordHasher } from './passwords';
import { ApiError, ErrorAnswer } from '../../../shared/src/errors';
import { valid } from './portal-refusal';
import type { PortalStore } from './store';

export interface AccountEmailsDeps {
  accounts: Pick<AccountService, 'getAccount'>;
  store: PortalStore;
  emailStore: PortalEmailStore;
  links: EmailLinks;
  mailer: Mailer;
  mailLinks: MailLinks;
  gate: AttemptGate;
  hasher: PasswordHasher;
  unsubscribe: UnsubscribeSignatures;
  /** With a mail server (`SMTP_URL`): an account creates keys only once its address is verified. */
  verificationRequired: boolean;
  /** Work done after the answer (a reset link for a forgotten password) that failed: for the log. */
  onError?: (error: unknown, what: string) => void;
  now?: () => number;
}

/** What the dashboard shows of the account's email. */
export interface EmailStatus extends EmailProfile {
  verified: boolean;
  /** Key creation waits for the verification. */
  blocksKeys: boolean;
}

const EXPIRED_LINK = 'This link has expired, was already used, or was replaced by a newer one.';

/**
 * The portal's use cases that go through email: verifying the address at sign-up (and again on
 * request), resetting a forgotten password, and the owner's switch for quota emails.
 */
export class AccountEmails {
  constructor(private readonly deps: AccountEmailsDeps) {}

  /**
   * During a sign-up, before its credential is written: the account's profile, not verified. (An
   * account without a profile counts as made before verification existed: verified.)
   */
  async prepare(accountId: string): Promise<void> {
    await this.deps.emailStore.updateProfile(accountId, NEW_PROFILE);
  }

  /** Emails the account a new verification link (voiding any earlier one). */
  async sendVerification(accountId: string): Promise<void> {
    const account = await this.deps.accounts.getAccount(accountId);
    if (!account.email) return;
    const token = await this.deps.links.issue('verify', accountId, account.email);
    this.deps.mailer.send(verificationEmail(account.email, this.deps.mailLinks.to('/portal/verify', { token })));
  }

  async status(accountId: string): Promise<EmailStatus> {
    const profile = (await this.deps.emailStore.findProfile(accountId)) ?? LEGACY_PROFILE;
    const verified = profile.emailVerifiedAt !== null;
    return { ...profile, verified, blocksKeys: this.deps.verificationRequired && !verified };
  }

  /** Refuses key creation while the address waits for its verification (only with a mail server). */
  async requireVerified(accountId: string): Promise<void> {
    if ((await this.status(accountId)).blocksKeys) {
      throw new ApiError('forbidden', 'Confirm your email address before creating keys: open the link we emailed you, or send it again with the button above.');
    }
  }

  /** "Send the link again": at most 3 an hour per account. False when the address is verified already (nothing sent). */
  async resendVerification(accountId: string): Promise<boolean> {
    if ((await this.status(accountId)).verified) return false;
    await this.deps.gate.take('verifyEmailsPerAccount', accountId, 'Three verification emails were sent in the last hour');
    await this.sendVerification(accountId);
    return true;
  }

  /** Uses a verification link; the account it verified. */
  async verify(token: string): Promise<string> {
    const link = await this.deps.links.redeem('verify', token);
    if (!link) throw new ApiError('invalid_body', `${EXPIRED_LINK} Log in and send yourself a new one from the dashboard.`);
    await this.markVerified(link.accountId);
    return link.accountId;
  }

  async markVerified(accountId: string): Promise<void> {
    const profile = await this.deps.emailStore.findProfile(accountId);
    if (profile?.emailVerifiedAt) return;
    await this.deps.emailStore.updateProfile(accountId, { emailVerifiedAt: new Date(this.now()).toISOString() });
  }

  /**
   * "Forgot password": emails a reset link when the address has an account, and answers the same
   * otherwise. Only what every address goes through (its form checked, requests per address
   * limited like the portal's other forms, the credential looked up) is awaited; an account's own
   * work (its limit of 3 emails an hour, silent; the link; the email) runs after the answer, so
   * neither the answer nor its timing tells whether the address has an account. Nothing here
   * touches the log-in limits: the owner can always still log in.
   */
  async forgotPassword(rawEmail: string, address: string): Promise<void> {
    await this.deps.gate.take('resetRequestsPerAddress', address, 'Too many password-reset requests from your network');
    const forms = valid(logInEmails(rawEmail));
    let credential = null;
    for (const form of forms) if (!credential) credential = await this.deps.store.findCredential(form);
    if (credential) this.sendResetLink(credential.accountId).catch((error: unknown) => this.deps.onError?.(error, 'password-reset email not sent'));
  }

  private async sendResetLink(accountId: string): Promise<void> {
    if ((await this.deps.gate.attempts.take('resetEmailsPerAccount', accountId)) !== null) return;
    const account = await this.deps.accounts.getAccount(accountId);
    if (!account.email) return;
    const token = await this.deps.links.issue('reset', accountId, account.email);
    this.deps.mailer.send(passwordResetEmail(account.email, this.deps.mailLinks.to('/portal/reset', { token })));
  }

  /**
   * Sets the new password a reset link allows (sign-up's rules), then ends every session of the
   * account. The password is checked before the link is used, so a refused one leaves it working.
   */
  async resetPassword(token: string, password: string): Promise<void> {
    const accountId = EmailLinks.accountOf(token);
    // An unknown account is a link that no longer works; a store that cannot answer is not (503, the link kept).
    const account = accountId === undefined ? undefined : await this.deps.accounts.getAccount(accountId).catch(unlessNotFound);
    const expired = new ApiError('invalid_body', `${EXPIRED_LINK} Ask for a new one on the "Forgot your password?" page.`);
    if (!account?.email) throw expired;
    valid(checkNewPassword(password, account.email));
    const passwordHash = await this.deps.hasher.hash(password);
    const link = await this.deps.links.redeem('reset', token);
    if (!link || !(await this.deps.store.replacePassword(link.email, passwordHash))) throw expired;
    await this.deps.store.deleteSessionsOf(link.accountId);
    // The link reached the address: it is verified now too.
    await this.markVerified(link.accountId);
  }

  async setQuotaEmails(accountId: string, on: boolean): Promise<void> {
    await this.deps.emailStore.updateProfile(accountId, { quotaEmails: on });
  }

  isUnsubscribeLink(accountId: string, signature: string): boolean {
    return this.deps.unsubscribe.verify(accountId, signature);
  }

  /** The quota emails' one-click link (signed, no session): turns them off; false for a link not signed by us. */
  async unsubscribeByLink(accountId: string, signature: string): Promise<boolean> {
    if (!this.deps.unsubscribe.verify(accountId, signature)) return false;
    await this.setQuotaEmails(accountId, false);
    return true;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}

function unlessNotFound(error: unknown): undefined {
  if (error instanceof ErrorAnswer && error.status === 404) return undefined;
  throw error;
}
