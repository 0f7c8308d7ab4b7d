import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { sameSecret } from '../keys/api-key';
import type { EmailLinkPurpose, PortalEmailStore } from './email-store';
import { newSecretToken } from './sessions';

/** How long each kind of link works: a day to confirm a sign-up, an hour to set a new password. */
export const LINK_LIFETIMES_MS: Readonly<Record<EmailLinkPurpose, number>> = Object.freeze({ verify: 24 * 3_600_000, reset: 3_600_000 });

// `acct_…` then `.` then 32 random bytes in base64url: the account says where to look, the secret proves the link.
const TOKEN_SHAPE = /^(acct_[0-9A-Za-z]{20})\.([A-Za-z0-9_-]{43})$/;

/**
 * The tokens of the links in emails. The token is `<account id>.<secret>`; the store keeps only the
 * secret's SHA-256 under the account and purpose, one live link each (a newer one voids the older),
 * taken once.
 */
export class EmailLinks {
  constructor(
    private readonly store: PortalEmailStore,
    private readonly lifetimes: Readonly<Record<EmailLinkPurpose, number>> = LINK_LIFETIMES_MS,
  ) {}

  async issue(purpose: EmailLinkPurpose, accountId: string, email: string): Promise<string> {
    const secret = newSecretToken();
    await this.store.saveLink(purpose, accountId, { digest: digest(secret), email }, this.lifetimes[purpose]);
    return `${accountId}.${secret}`;
  }

  /** The account whose link this is, without using it up (to check a form before spending the link). */
  static accountOf(token: string): string | undefined {
    return TOKEN_SHAPE.exec(token)?.[1];
  }

  /** Uses the link up: its account and the address it was sent to, or null (unknown, expired, replaced, used). */
  async redeem(purpose: EmailLinkPurpose, token: string): Promise<{ accountId: string; email: string } | null> {
    const parts = TOKEN_SHAPE.exec(token);
    if (!parts) return null;
    const [, accountId, secret] = parts as unknown as [string, string, string];
    const link = await this.store.takeLink(purpose, accountId, digest(secret));
    return link ? { accountId, email: link.email } : null;
  }
}

function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * The one-click link that turns an account's quota emails off (in each quota email and its
 * `List-Unsubscribe`): signed, so it needs no session and no store, and works for as long as the
 * signing secret does. It can only turn emails off.
 */
export class UnsubscribeSignatures {
  private readonly key: Buffer;

  /** `secret`: INTERNAL_JWT_SECRET, from which a key of its own is derived. */
  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'animal-store', 'quota emails off', 32));
  }

  sign(accountId: string): string {
    return createHmac('sha256', this.key).update(accountId).digest('base64url');
  }

  verify(accountId: string, signature: string): boolean {
    return /^acct_[0-9A-Za-z]{20}$/.test(accountId) && sameSecret(this.sign(accountId), signature);
  }
}
