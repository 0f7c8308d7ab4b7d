import type { AccountStore } from '../accounts/account-store';
import type { EventBus } from '../events/event-bus';
import { isQuotaEvent, type QuotaEvent } from '../events/types';
import { LEGACY_PROFILE, type PortalEmailStore } from '../portal/email-store';
import type { UnsubscribeSignatures } from '../portal/email-links';
import type { MailLinks } from './links';
import { ownerEmail, quotaEmail, type OwnerNotice } from './messages';
import type { Mailer } from './mailer';

export interface AccountMailDeps {
  mailer: Mailer;
  accounts: Pick<AccountStore, 'getAccount'>;
  profiles: Pick<PortalEmailStore, 'findProfile'>;
  links: MailLinks;
  unsubscribe: UnsubscribeSignatures;
}

/**
 * Emails to an account's owner (the address it signed up with): the quota warnings, and
 * `toOwner` for any other notice (e.g. a webhook endpoint disabled). An account without an email
 * (made by ops) gets none.
 */
export class AccountMail {
  constructor(private readonly deps: AccountMailDeps) {}

  /**
   * Queues `notice` to the account's owner; false when the account has no email. `jobId` makes it
   * once across replicas (e.g. the id of the event it tells of).
   */
  async toOwner(accountId: string, notice: OwnerNotice, jobId?: string): Promise<boolean> {
    const account = await this.deps.accounts.getAccount(accountId);
    if (!account?.email) return false;
    this.deps.mailer.send(ownerEmail(account.email, notice), jobId);
    return true;
  }

  /** The email queue's numbers (waiting, delayed for a retry, failed). */
  queueStats() {
    return this.deps.mailer.stats();
  }

  /** Sends the 80 % and 100 % emails of the quota events on `bus`, to owners who did not turn them off. */
  listen(bus: EventBus): () => void {
    return bus.subscribe(async (event) => {
      if (isQuotaEvent(event)) await this.onQuotaEvent(event);
    });
  }

  private async onQuotaEvent(event: QuotaEvent): Promise<void> {
    const [account, profile] = await Promise.all([this.deps.accounts.getAccount(event.accountId), this.deps.profiles.findProfile(event.accountId)]);
    if (!account?.email || !(profile ?? LEGACY_PROFILE).quotaEmails) return;
    const { links, unsubscribe } = this.deps;
    const email = quotaEmail({
      to: account.email,
      kind: event.type === 'quota.warning' ? 'warning' : 'exhausted',
      data: event.data,
      dashboardLink: links.to('/portal'),
      unsubscribeLink: links.to('/portal/unsubscribe', { account: account.id, token: unsubscribe.sign(account.id) }),
    });
    // The event is published once across replicas; its id makes the email once even if it were not.
    this.deps.mailer.send(email, `quota:${event.id}`);
  }
}
