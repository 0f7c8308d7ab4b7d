/**
 * What the developer portal keeps beside accounts and keys: log-ins by email, sessions, and the
 * masked form of the keys it created. Two implementations pass one contract suite
 * (`gateway/test/portal-store.contract.ts`): Redis, shared by every replica, and in-process,
 * chosen like the account store (REDIS_URL set or not).
 */

/** A signed-up email's log-in. The password is only ever held as a `PasswordHasher` hash. */
export interface Credential {
  accountId: string;
  passwordHash: string;
  createdAt: string;
}

export interface SessionRecord {
  accountId: string;
  /** The synchronizer token every state-changing form of this session must carry. */
  csrfToken: string;
  createdAtMs: number;
  lastSeenAtMs: number;
}

export interface PortalStore {
  /**
   * Reserves an email for one sign-up, for `ttlMs`: of concurrent callers exactly one gets true.
   * False when the email already has a credential or another reservation. The reservation expires
   * by itself, so a sign-up that died half-way does not keep the email forever.
   */
  reserveEmail(email: string, reservation: string, ttlMs: number): Promise<boolean>;
  /** Turns this reservation into the email's credential, kept for good; false when the reservation is gone. */
  completeSignUp(email: string, reservation: string, credential: Credential): Promise<boolean>;
  /** Drops this reservation (the sign-up failed); anything else under the email stays. */
  releaseEmail(email: string, reservation: string): Promise<void>;
  /** The credential of a signed-up email; null when unknown or only reserved. */
  findCredential(email: string): Promise<Credential | null>;
  /** Sets a signed-up email's password hash (a reset); false when the email has no credential. */
  replacePassword(email: string, passwordHash: string): Promise<boolean>;

  /** `id` is the session token's digest, never the token itself. Replaces any session under `id`. */
  saveSession(id: string, session: SessionRecord, ttlMs: number): Promise<void>;
  findSession(id: string): Promise<SessionRecord | null>;
  deleteSession(id: string): Promise<void>;
  /** Ends every session of the account (after a new password). */
  deleteSessionsOf(accountId: string): Promise<void>;

  close(): Promise<void>;
}
