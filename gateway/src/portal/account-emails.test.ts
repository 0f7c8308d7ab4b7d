import pino from 'pino';
import type { AccountDetails } from '../accounts/account-views';
import { MemoryJobQueues } from '../jobs/memory-queues';
import type { Email } from '../mail/email';
import { MailLinks } from '../mail/links';
import { Mailer } from '../mail/mailer';
import { AccountEmails } from './account-emails';
import { AttemptGate } from './attempt-gate';
import { AttemptLimits } from './attempt-limits';
import { EmailLinks, UnsubscribeSignatures } from './email-links';
import { MemoryPortalEmailStore, type EmailLinkPurpose, type EmailLinkRecord } from './email-store';
import { MemoryPortalStore } from './memory-store';
import { PasswordHasher } from './passwords';
import { StoreUnavailableError } from '../store-errors';

const OWNER = 'owner@example.com';
const ACCOUNT_ID = 'acct_AAAAAAAAAAAAAAAAAAAA';

/** The in-process email store, whose link writes wait until `release` (a slow store, held still). */
class HeldLinkStore extends MemoryPortalEmailStore {
  release!: () => void;
  private readonly held = new Promise<void>((resolve) => (this.release = resolve));

  override async saveLink(purpose: EmailLinkPurpose, accountId: string, record: EmailLinkRecord, ttlMs: number): Promise<void> {
    await this.held;
    await super.saveLink(purpose, accountId, record, ttlMs);
  }
}

async function setUp(getAccount: (id: string) => Promise<AccountDetails> = async (id) => ({ id, email: OWNER }) as AccountDetails) {
  const store = new MemoryPortalStore();
  await store.reserveEmail(OWNER, 'r', 60_000);
  await store.completeSignUp(OWNER, 'r', { accountId: ACCOUNT_ID, passwordHash: 'unused', createdAt: new Date().toISOString() });
  const emailStore = new HeldLinkStore();
  const sent: Email[] = [];
  const jobs = new MemoryJobQueues();
  const mailer = new Mailer({ jobs, transport: { description: 'a list', send: async (email) => void sent.push(email), close: () => undefined }, logger: pino({ level: 'silent' }) });
  const emails = new AccountEmails({
    accounts: { getAccount },
    store,
    emailStore,
    links: new EmailLinks(emailStore),
    mailer,
    mailLinks: new MailLinks(undefined, 8080),
    gate: new AttemptGate(new AttemptLimits(), 56),
    hasher: new PasswordHasher({ cost: { log2N: 10, r: 8, p: 1 } }),
    unsubscribe: new UnsubscribeSignatures('test-internal-secret-0123456789abcdef'),
    verificationRequired: true,
  });
  return { emails, emailStore, sent, jobs };
}

/** Whether `work` settles before `deadlineMs`, without leaving a timer behind. */
async function settlesWithin(work: Promise<unknown>, deadlineMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs)));
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('AccountEmails.forgotPassword', () => {
  it("when the address has an account, then the answer does not wait for the account's link and email (its timing tells nothing)", async () => {
    const { emails, emailStore, sent, jobs } = await setUp();
    try {
      // The link's store is held: an answer that waited for it would never come.
      expect(await settlesWithin(emails.forgotPassword(OWNER, '10.0.0.1'), 5_000)).toBe(true);
      expect(sent).toEqual([]);
      emailStore.release();
      const deadline = Date.now() + 5_000;
      while (sent.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(sent.map((email) => email.to)).toEqual([OWNER]);
    } finally {
      emailStore.release();
      await jobs.close();
    }
  });
});

describe('AccountEmails.resetPassword', () => {
  it('when the account store cannot answer, then the reset fails as the store being down, not as an expired link (which would send the owner for a new one)', async () => {
    const { emails, emailStore, jobs } = await setUp(async () => {
      throw new StoreUnavailableError('account store took longer than 500 ms');
    });
    emailStore.release();
    try {
      await expect(emails.resetPassword(`${ACCOUNT_ID}.${'A'.repeat(43)}`, 'quiet harbour lantern maple')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await jobs.close();
    }
  });
});
