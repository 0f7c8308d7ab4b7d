import { createHash, randomBytes } from 'node:crypto';
import type { PortalStore, SessionRecord } from './store';

/**
 * Portal sessions. The browser holds a random 256-bit token (in an HttpOnly cookie); the store
 * holds only its SHA-256, so reading the store does not give anyone a working session.
 * A session ends after `idleMs` without a request, and after `absoluteMs` whatever happens.
 */
export interface SessionPolicy {
  idleMs: number;
  absoluteMs: number;
}

export const SESSION_POLICY: Readonly<SessionPolicy> = Object.freeze({ idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000 });

/** A session's last-seen time is written back at most this often, so page views do not each cost a write. */
const TOUCH_EVERY_MS = 60_000;

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface ActiveSession {
  accountId: string;
  csrfToken: string;
}

export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

export class Sessions {
  constructor(
    private readonly store: PortalStore,
    private readonly policy: SessionPolicy = SESSION_POLICY,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session with a new token and a new CSRF token: never one the browser already had. */
  async start(accountId: string): Promise<{ token: string; session: ActiveSession }> {
    const token = newSecretToken();
    const now = this.now();
    const record: SessionRecord = { accountId, csrfToken: newSecretToken(), createdAtMs: now, lastSeenAtMs: now };
    await this.store.saveSession(digest(token), record, this.timeToLive(record, now));
    return { token, session: { accountId, csrfToken: record.csrfToken } };
  }

  /** The session the token stands for, if it is still alive; counts this request as activity. */
  async resume(token: string | undefined): Promise<ActiveSession | null> {
    if (token === undefined || !TOKEN_SHAPE.test(token)) return null;
    const id = digest(token);
    const record = await this.store.findSession(id);
    if (!record) return null;
    const now = this.now();
    if (this.timeToLive(record, now) <= 0) {
      await this.store.deleteSession(id);
      return null;
    }
    if (now - record.lastSeenAtMs >= Math.min(TOUCH_EVERY_MS, this.policy.idleMs / 10)) {
      const touched = { ...record, lastSeenAtMs: now };
      await this.store.saveSession(id, touched, this.timeToLive(touched, now));
    }
    return { accountId: record.accountId, csrfToken: record.csrfToken };
  }

  async end(token: string | undefined): Promise<void> {
    if (token !== undefined && TOKEN_SHAPE.test(token)) await this.store.deleteSession(digest(token));
  }

  /** What is left before the idle or the absolute expiry, whichever comes first. */
  private timeToLive(record: SessionRecord, now: number): number {
    return Math.min(record.lastSeenAtMs + this.policy.idleMs, record.createdAtMs + this.policy.absoluteMs) - now;
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
