import type { Credential, PortalStore, SessionRecord } from './store';

type LoginEntry = { kind: 'reserved'; reservation: string; expiresAtMs: number } | { kind: 'credential'; credential: Credential };

const SWEEP_INTERVAL_MS = 60_000;

/** The in-process portal store (no REDIS_URL): nothing survives a restart, like the account store it sits beside. */
export class MemoryPortalStore implements PortalStore {
  private readonly logins = new Map<string, LoginEntry>();
  private readonly sessions = new Map<string, { session: SessionRecord; expiresAtMs: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    // Expired sessions are refused when read; the sweep only keeps abandoned ones from piling up.
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  async reserveEmail(email: string, reservation: string, ttlMs: number): Promise<boolean> {
    if (this.login(email)) return false;
    this.logins.set(email, { kind: 'reserved', reservation, expiresAtMs: this.now() + ttlMs });
    return true;
  }

  async completeSignUp(email: string, reservation: string, credential: Credential): Promise<boolean> {
    const entry = this.login(email);
    if (entry?.kind !== 'reserved' || entry.reservation !== reservation) return false;
    this.logins.set(email, { kind: 'credential', credential: { ...credential } });
    return true;
  }

  async releaseEmail(email: string, reservation: string): Promise<void> {
    const entry = this.login(email);
    if (entry?.kind === 'reserved' && entry.reservation === reservation) this.logins.delete(email);
  }

  async findCredential(email: string): Promise<Credential | null> {
    const entry = this.login(email);
    return entry?.kind === 'credential' ? { ...entry.credential } : null;
  }

  async replacePassword(email: string, passwordHash: string): Promise<boolean> {
    const entry = this.login(email);
    if (entry?.kind !== 'credential') return false;
    this.logins.set(email, { kind: 'credential', credential: { ...entry.credential, passwordHash } });
    return true;
  }

  async saveSession(id: string, session: SessionRecord, ttlMs: number): Promise<void> {
    this.sessions.set(id, { session: { ...session }, expiresAtMs: this.now() + ttlMs });
  }

  async findSession(id: string): Promise<SessionRecord | null> {
    const entry = this.sessions.get(id);
    if (!entry) return null;
    if (entry.expiresAtMs <= this.now()) {
      this.sessions.delete(id);
      return null;
    }
    return { ...entry.session };
  }

  async deleteSession(id: string): Promise<void> {
    this.sessions.delete(id);
  }

  async deleteSessionsOf(accountId: string): Promise<void> {
    for (const [id, entry] of this.sessions) if (entry.session.accountId === accountId) this.sessions.delete(id);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  /** The email's entry, an expired reservation counting as none. */
  private login(email: string): LoginEntry | undefined {
    const entry = this.logins.get(email);
    if (entry?.kind === 'reserved' && entry.expiresAtMs <= this.now()) {
      this.logins.delete(email);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.sessions) if (entry.expiresAtMs <= now) this.sessions.delete(id);
    for (const [email, entry] of this.logins) if (entry.kind === 'reserved' && entry.expiresAtMs <= now) this.logins.delete(email);
  }
}
