import type { QuotaEventData } from '../events/types';
import type { Email } from './email';

/**
 * The words of every email the gateway sends, in plain text. Links only, never a password or an
 * API key; each says what it is for and what happens if the reader ignores it.
 */

const SIGNATURE = '\n-- \nAnimal Store developer portal';

export function verificationEmail(to: string, link: string): Email {
  return {
    to,
    subject: 'Confirm your email address for the Animal Store developer portal',
    text: `Hello,

someone (we hope you) created an Animal Store developer account with this address.
To confirm it is yours, open this link within 24 hours:

${link}

Until the address is confirmed, the account cannot create API keys.
If you did not sign up, ignore this email: nothing more will be sent for this sign-up.
${SIGNATURE}`,
  };
}

export function passwordResetEmail(to: string, link: string): Email {
  return {
    to,
    subject: 'Set a new password for the Animal Store developer portal',
    text: `Hello,

someone (we hope you) asked to set a new password for the Animal Store developer account of this address.
To choose one, open this link within 1 hour (it works once, and only the newest link works):

${link}

Setting a new password logs out every session of the account.
If you did not ask, ignore this email: your password stays as it is.
${SIGNATURE}`,
  };
}

export interface QuotaEmailInput {
  to: string;
  kind: 'warning' | 'exhausted';
  data: QuotaEventData;
  dashboardLink: string;
  /** A link that turns quota emails off (also given as `List-Unsubscribe`). */
  unsubscribeLink: string;
}

export function quotaEmail({ to, kind, data, dashboardLink, unsubscribeLink }: QuotaEmailInput): Email {
  const share = Math.floor((data.used / data.quota) * 100);
  const reset = `${data.resetAt.slice(0, 10)} ${data.resetAt.slice(11, 16)} UTC`;
  const subject = kind === 'warning' ? `You have used ${share} % of today's API quota` : "Today's API quota is used up";
  const what =
    kind === 'warning'
      ? `Your account ${data.accountId} has used ${data.used} of its ${data.quota} requests for today (UTC).\nOnce all are used, requests are refused with 429 until the quota resets at ${reset}.`
      : `Your account ${data.accountId} has used all ${data.quota} of its requests for today (UTC).\nRequests are refused with 429 until the quota resets at ${reset}.`;
  return {
    to,
    subject,
    text: `Hello,

${what}

Usage and plans: ${dashboardLink}

You get at most one such email per threshold (80 % and 100 %) a day.
To get no more quota emails: ${unsubscribeLink}
${SIGNATURE}`,
    headers: { 'List-Unsubscribe': `<${unsubscribeLink}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

export interface OwnerNotice {
  subject: string;
  /** The body's paragraphs (plain text); the greeting and signature are added. */
  text: string;
}

export function ownerEmail(to: string, { subject, text }: OwnerNotice): Email {
  return { to, subject, text: `Hello,\n\n${text}\n${SIGNATURE}` };
}
