import { AUDIT_ENTRY_ID, isOlder, type AuditEntry, type AuditLog, type AuditPage, type AuditQuery, type NewAuditEntry } from './audit-log';

/** Entries the portal's own trail keeps (its own cap: nothing a portal account does can push an operator's change out). */
export const PORTAL_AUDIT_ENTRIES_KEPT = 100_000;

/** Changes a portal account made to itself (`portal:<account>`), or a sign-up (`portal`). */
export function isPortalActor(actor: string): boolean {
  return actor === 'portal' || actor.startsWith('portal:');
}

/**
 * The audit trail in two streams: operators' changes (and the system's) in one, what portal
 * accounts do to themselves in another, each with its own cap. One trail used to hold both, capped
 * at 100,000 entries: a portal account creating and revoking keys in a loop (200 entries in 1.3 s)
 * turned it over in minutes, operators' changes included. Now a portal flood can only push out
 * older portal entries. Listing merges the two, newest first, as one trail.
 *
 * Each stream numbers its entries `<ms>-<seq>` on its own, so two may share an id. The merged trail
 * gives every entry `<ms>-<2·seq + stream>` (operators 0, portal 1): ids stay unique, in the order of
 * each stream, and a page cursor (the id a page ended at) is turned back into each stream's own.
 * Entries of the two streams are ordered to the millisecond: within one, the streams' own
 * sequences decide (each entry still comes exactly once when paging).
 */
export class SeparatedAuditLog implements AuditLog {
  private readonly streams: readonly [AuditLog, AuditLog];

  constructor(operators: AuditLog, portal: AuditLog) {
    this.streams = [operators, portal];
  }

  record(entry: NewAuditEntry): Promise<void> {
    return this.streams[isPortalActor(entry.actor) ? 1 : 0].record(entry);
  }

  async list({ limit, before, accountId }: AuditQuery): Promise<AuditPage> {
    const pages = await Promise.all(
      this.streams.map((stream, index) => stream.list({ limit, ...(before === undefined ? {} : { before: streamCursor(before, index) }), ...(accountId === undefined ? {} : { accountId }) })),
    );
    const merged: AuditEntry[] = pages
      .flatMap((page, index) => page.entries.map((entry) => ({ ...entry, id: mergedId(entry.id, index) })))
      .sort((a, b) => (isOlder(a.id, b.id) ? 1 : isOlder(b.id, a.id) ? -1 : 0));
    const entries = merged.slice(0, limit);
    const more = merged.length > limit || pages.some((page) => page.next !== null);
    return { entries, next: more && entries.length > 0 ? entries[entries.length - 1]!.id : null };
  }
}

function mergedId(id: string, stream: number): string {
  const [, ms = '0', seq = '0'] = AUDIT_ENTRY_ID.exec(id) ?? [];
  return `${ms}-${Number(seq) * 2 + stream}`;
}

/** The id in `stream` that lists exactly that stream's entries older than the merged id `before`. */
function streamCursor(before: string, stream: number): string {
  const [, ms = '0', seq = '0'] = AUDIT_ENTRY_ID.exec(before) ?? [];
  // Older in the merged order: 2·seq + stream < merged seq, i.e. seq < ceil((merged seq − stream) / 2).
  return `${ms}-${Math.max(0, Math.ceil((Number(seq) - stream) / 2))}`;
}
