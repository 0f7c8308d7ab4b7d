import type { RedisClient } from '../redis';
import { storeCall } from '../store-errors';
import { AUDIT_ENTRIES_KEPT, type AuditAction, type AuditEntry, type AuditLog, type AuditPage, type AuditQuery, type AuditValues, type NewAuditEntry } from './audit-log';

export interface RedisAuditLogOptions {
  redis: RedisClient;
  /** The Redis key of a name in the account store's keyspace (`RedisAccountStore.key`). */
  key: (name: string) => string;
  /** Entries kept (approximately: `MAXLEN ~` trims whole stream nodes). */
  maxEntries?: number;
  /** The stream's name in the keyspace (default `audit`: operators' changes; `audit:portal` for the portal's). */
  stream?: string;
  /** Entries one listing script call may look at (default 2,000). */
  listBudget?: number;
}

const DEADLINE_MS = 1_000;

/**
 * One page of the stream, newest first. KEYS: the stream. ARGV: where to start (an XREVRANGE end:
 * '+' or '(' .. id), how many to find, the account id to match ('' matches all), how many entries
 * this call may look at. Returns {exhausted (0/1), the last id looked at, entries found...}, each
 * entry as XREVRANGE gives it ({id, {field, value, ...}}); the caller goes on from the last id
 * looked at, so a filter that matches rarely never holds Redis for long.
 */
const AUDIT_PAGE = `
local from, wanted, account, budget = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local found, last, looked = {}, '', 0
while looked < budget do
  local chunk = redis.call('XREVRANGE', KEYS[1], from, '-', 'COUNT', math.min(256, budget - looked))
  if #chunk == 0 then return {1, last, unpack(found)} end
  for _, entry in ipairs(chunk) do
    looked = looked + 1
    last = entry[1]
    local matches = account == ''
    if not matches then
      local fields = entry[2]
      for i = 1, #fields, 2 do
        if fields[i] == 'accountId' then matches = fields[i + 1] == account end
      end
    end
    if matches then found[#found + 1] = entry end
    if #found >= wanted then return {0, last, unpack(found)} end
  end
  from = '(' .. last
end
return {0, last, unpack(found)}`;

type StreamEntry = [id: string, fields: string[]];

/**
 * The trail in a capped Redis stream (`audit` in the account store's keyspace): XADD with
 * `MAXLEN ~`, so appending is O(1) and the oldest entries go once the cap is passed. The stream id
 * orders entries across replicas; `at` is the time the replica made the change.
 */
export class RedisAuditLog implements AuditLog {
  private readonly redis: RedisClient;
  private readonly streamKey: string;
  private readonly maxEntries: number;
  private readonly listBudget: number;

  constructor({ redis, key, maxEntries = AUDIT_ENTRIES_KEPT, listBudget = 2_000, stream = 'audit' }: RedisAuditLogOptions) {
    this.redis = redis;
    this.streamKey = key(stream);
    this.maxEntries = maxEntries;
    this.listBudget = listBudget;
  }

  async record(entry: NewAuditEntry): Promise<void> {
    const fields = [
      ['at', entry.at],
      ['actor', entry.actor],
      ['action', entry.action],
      ['target', entry.target],
      ['accountId', entry.accountId ?? ''],
      ['before', JSON.stringify(entry.before)],
      ['after', JSON.stringify(entry.after)],
    ].flat();
    await storeCall(this.redis.xadd(this.streamKey, 'MAXLEN', '~', String(this.maxEntries), '*', ...fields), DEADLINE_MS, 'audit log');
  }

  async list({ limit, before, accountId = '' }: AuditQuery): Promise<AuditPage> {
    const found: StreamEntry[] = [];
    let from = before === undefined ? '+' : `(${before}`;
    // One more than the page: finding it is what says a next page exists.
    for (;;) {
      const reply = (await storeCall(
        this.redis.eval(AUDIT_PAGE, 1, this.streamKey, from, limit + 1 - found.length, accountId, this.listBudget),
        DEADLINE_MS,
        'audit log',
      )) as [number, string, ...StreamEntry[]];
      const [exhausted, last, ...entries] = reply;
      found.push(...entries);
      if (exhausted === 1 || found.length > limit || last === '') break;
      from = `(${last}`;
    }
    const entries = found.slice(0, limit).map(toEntry);
    return { entries, next: found.length > limit ? entries[entries.length - 1]!.id : null };
  }
}

function toEntry([id, list]: StreamEntry): AuditEntry {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) fields[list[i]!] = list[i + 1]!;
  return {
    id,
    at: fields.at ?? '',
    actor: fields.actor ?? '',
    action: (fields.action ?? '') as AuditAction,
    target: fields.target ?? '',
    accountId: fields.accountId ? fields.accountId : null,
    before: parseValues(fields.before),
    after: parseValues(fields.after),
  };
}

/** Anyone with access to Redis can write to the stream: an unreadable value shows as null rather than failing the page. */
function parseValues(json: string | undefined): AuditValues {
  try {
    const value: unknown = JSON.parse(json ?? 'null');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as AuditValues) : null;
  } catch {
    return null;
  }
}
