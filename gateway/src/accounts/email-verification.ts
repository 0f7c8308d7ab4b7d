import type { AuditLog } from '../audit/audit-log';
import { LEGACY_PROFILE, type PortalEmailStore } from '../portal/email-store';
import type { AccountService } from './account-service';

/** Whether the account's email is verified, as ops see it: null for an account without an email. */
export interface EmailVerificationView {
  emailVerified: boolean | null;
  /** ISO 8601 when it was verified (by its link, a reset link or an operator); null when not verified. */
  emailVerifiedAt: string | null;
}

/**
 * Ops' view of the portal's email verification, and their way to mark an address verified (the
 * owner cannot receive the link, say): audited like every other change an operator makes.
 */
export class EmailVerification {
  constructor(
    private readonly deps: {
      accounts: Pick<AccountService, 'getAccount'>;
      profiles: PortalEmailStore;
      audit: AuditLog;
      now?: () => number;
    },
  ) {}

  async viewOf(account: { id: string; email: string | null }): Promise<EmailVerificationView> {
    if (account.email === null) return { emailVerified: null, emailVerifiedAt: null };
    const profile = (await this.deps.profiles.findProfile(account.id)) ?? LEGACY_PROFILE;
    const at = profile.emailVerifiedAt;
    // Accounts from before verification existed count as verified, without a time.
    return { emailVerified: at !== null, emailVerifiedAt: at !== null && !Number.isNaN(Date.parse(at)) ? at : null };
  }

  /** Marks the account's email verified (unknown account: not_found); nothing changes, and nothing is recorded, if it already is. */
  async markVerified(accountId: string, actor: string): Promise<EmailVerificationView> {
    const account = await this.deps.accounts.getAccount(accountId);
    const before = await this.viewOf(account);
    if (account.email === null || before.emailVerified) return before;
    const at = new Date((this.deps.now ?? Date.now)()).toISOString();
    await this.deps.profiles.updateProfile(accountId, { emailVerifiedAt: at });
    await this.deps.audit.record({ at, actor, action: 'account.email_verified', target: accountId, accountId, before: { emailVerified: false }, after: { emailVerified: true } });
    return { emailVerified: true, emailVerifiedAt: at };
  }
}
