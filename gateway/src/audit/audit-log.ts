/**
 * The audit trail: every change an operator makes (through the admin API, and so the CLI and the
 * console) with who, what, when, and the values before and after. Recorded by the use cases
 * (`AccountService`), so no caller can change something without leaving an entry.
 */

export const AUDIT_ACTIONS = ['account.created', 'account.updated', 'key.created', 'key.rolled', 'key.revoked', 'ban.lifted', 'plan.updated', 'account.email_verified', 'webhook.added', 'webhook.removed'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The values that changed, as they were before or are after; null when there was nothing (before a creation). */
export type AuditValues = Record<string, string | number | boolean | null> | null;

export interface NewAuditEntry {
  /** ISO 8601, UTC: when the change was made. */
  at: string;
  /** The admin token's name (`ADMIN_TOKENS`), `admin` for `ADMIN_TOKEN`, `system` for the gateway itself. */
  actor: string;
  action: AuditAction;
  /** What changed: an account id, a key id or a plan name. */
  target: string;
  /** The account the change concerns (for a key, its account); null for a plan. */
  accountId: string | null;
  before: AuditValues;
  after: AuditValues;
}

export interface AuditEntry extends NewAuditEntry {
  /** The entry's place in the trail, `<ms>-<sequence>`: later entries have greater ids (a Redis stream id). */
  id: string;
}

export interface AuditQuery {
  limit: number;
  /** Only entries older than this one (an `id`): where the previous page ended. */
  before?: string;
  /** Only entries about this account. */
  accountId?: string;
}

export interface AuditPage {
  /** Newest first. */
  entries: AuditEntry[];
  /** The id the next page starts before, when older entries match; null on the last page. */
  next: string | null;
}

export interface AuditLog {
  record(entry: NewAuditEntry): Promise<void>;
  list(query: AuditQuery): Promise<AuditPage>;
}

/** An entry id: milliseconds and a sequence number, as Redis streams make them. */
export const AUDIT_ENTRY_ID = /^(\d{1,15})-(\d{1,15})$/;

/** Newest-first order of two entry ids. */
export function isOlder(id: string, than: string): boolean {
  const [, ms = '0', seq = '0'] = AUDIT_ENTRY_ID.exec(id) ?? [];
  const [, thanMs = '0', thanSeq = '0'] = AUDIT_ENTRY_ID.exec(than) ?? [];
  return Number(ms) < Number(thanMs) || (ms === thanMs && Number(seq) < Number(thanSeq));
}

/** Entries kept by default: the oldest go first (about 30 MB in Redis at the size of a typical entry). */
export const AUDIT_ENTRIES_KEPT = 100_000;

/** The trail of a gateway that runs alone (in-process store): kept in memory, lost on restart like the rest of its state. */
export class MemoryAuditLog implements AuditLog {
  private readonly entries: AuditEntry[] = [];
  private lastMs = 0;
  private sequence = 0;

  constructor(
    private readonly maxEntries = AUDIT_ENTRIES_KEPT,
    private readonly now: () => number = Date.now,
  ) {}

  async record(entry: NewAuditEntry): Promise<void> {
    const ms = Math.max(this.now(), this.lastMs);
    this.sequence = ms === this.lastMs ? this.sequence + 1 : 0;
    this.lastMs = ms;
    this.entries.push({ id: `${ms}-${this.sequence}`, ...copy(entry) });
    if (this.entries.length > this.maxEntries) this.entries.splice(0, this.entries.length - this.maxEntries);
  }

  async list({ limit, before, accountId }: AuditQuery): Promise<AuditPage> {
    const entries: AuditEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (before !== undefined && !isOlder(entry.id, before)) continue;
      if (accountId !== undefined && entry.accountId !== accountId) continue;
      if (entries.length === limit) return { entries, next: entries[entries.length - 1]!.id };
      entries.push(copy(entry));
    }
    return { entries, next: null };
  }
}

function copy<T extends NewAuditEntry>(entry: T): T {
  return { ...entry, before: entry.before && { ...entry.before }, after: entry.after && { ...entry.after } };
}
