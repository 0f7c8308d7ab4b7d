/**
 * What the portal keeps for its emails, beside its log-ins and sessions (`PortalStore`): the one
 * live link of each kind per account (stored as a digest: reading the store gives nobody a working
 * link) and each account's email profile. In process or on Redis, chosen like the portal store;
 * both pass `gateway/test/portal-email-store.contract.ts`.
 */

/** `verify`: the sign-up's address check (24 h); `reset`: a new password (1 h). */
export type EmailLinkPurpose = 'verify' | 'reset';

export interface EmailLinkRecord {
  /** SHA-256 (hex) of the link's secret. */
  digest: string;
  /** The address the link was sent to (a verification proves this one). */
  email: string;
}

/** An account's email settings. Accounts without one (made by ops, or before emails existed) read as `LEGACY_PROFILE`. */
export interface EmailProfile {
  /** ISO 8601 when the address was proven (a verification link, a reset link, or ops); null: not yet. */
  emailVerifiedAt: string | null;
  /** Whether the owner wants the 80 % and 100 % quota emails. */
  quotaEmails: boolean;
}

export interface PortalEmailStore {
  /** Keeps `record` as the account's one live link of `purpose` for `ttlMs`: an earlier one stops working. */
  saveLink(purpose: EmailLinkPurpose, accountId: string, record: EmailLinkRecord, ttlMs: number): Promise<void>;
  /** The live link with this digest, removed in the same step (single use); null when absent, expired, replaced or used. */
  takeLink(purpose: EmailLinkPurpose, accountId: string, digest: string): Promise<EmailLinkRecord | null>;
  findProfile(accountId: string): Promise<EmailProfile | null>;
  /** Sets the given fields (creating the profile from `patch` and the defaults when there is none). */
  updateProfile(accountId: string, patch: Partial<EmailProfile>): Promise<void>;
  close(): Promise<void>;
}

/** A profile not stored: an account from before verification existed counts as verified; quota emails on. */
export const LEGACY_PROFILE: Readonly<EmailProfile> = Object.freeze({ emailVerifiedAt: 'before verification', quotaEmails: true });
/** A new portal account's profile. */
export const NEW_PROFILE: Readonly<EmailProfile> = Object.freeze({ emailVerifiedAt: null, quotaEmails: true });

export class MemoryPortalEmailStore implements PortalEmailStore {
  private readonly links = new Map<string, EmailLinkRecord & { expiresAtMs: number }>();
  private readonly profiles = new Map<string, EmailProfile>();

  constructor(private readonly now: () => number = Date.now) {}

  async saveLink(purpose: EmailLinkPurpose, accountId: string, record: EmailLinkRecord, ttlMs: number): Promise<void> {
    for (const [key, link] of this.links) if (link.expiresAtMs <= this.now()) this.links.delete(key);
    this.links.set(`${purpose}:${accountId}`, { ...record, expiresAtMs: this.now() + ttlMs });
  }

  async takeLink(purpose: EmailLinkPurpose, accountId: string, digest: string): Promise<EmailLinkRecord | null> {
    const key = `${purpose}:${accountId}`;
    const link = this.links.get(key);
    if (!link || link.digest !== digest) return null;
    this.links.delete(key);
    return link.expiresAtMs > this.now() ? { digest: link.digest, email: link.email } : null;
  }

  async findProfile(accountId: string): Promise<EmailProfile | null> {
    const profile = this.profiles.get(accountId);
    return profile ? { ...profile } : null;
  }

  async updateProfile(accountId: string, patch: Partial<EmailProfile>): Promise<void> {
    this.profiles.set(accountId, { ...(this.profiles.get(accountId) ?? NEW_PROFILE), ...patch });
  }

  async close(): Promise<void> {}
}
