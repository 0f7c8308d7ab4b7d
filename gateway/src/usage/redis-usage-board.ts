import type { RedisClient } from '../redis';
import type { KeyRef, LimitDecision, WindowName } from '../limits/types';
import { utcDate, utcDay } from '../limits/windows';
import { storeCall } from '../store-errors';
import { BackgroundFlush } from './background-flush';
import { SAME_WINDOW_TOLERANCE_MS, UsageTally, type RefusedKey, type UsageBoard, type UsageEntry, type WindowSnapshot } from './usage-board';

export interface RedisUsageBoardOptions {
  redis: RedisClient;
  /** The Redis key of a name in the account store's keyspace (`RedisAccountStore.key`). */
  key: (name: string) => string;
  /** How often this replica's observations go to Redis (default 1 s): the board's staleness. */
  flushIntervalMs?: number;
  maxEntries?: number;
  onFlushError?: (error: unknown) => void;
}

/** Day keys outlive their day by one, so a read just after midnight still finds yesterday's while nobody asks for it. */
const DAY_KEYS_TTL_SECONDS = 2 * 86_400;
const DEADLINE_MS = 1_000;

/**
 * Layout (names through the account store's `key`, so under its prefix / hash tag):
 * - `usage:minute` sorted set: account id → share of its per-minute quota used (used / quota)
 * - `usage:minute:detail` hash: account id → `used:quota:resetAtMs`
 * - `usage:minute:ends` sorted set: account id → resetAtMs, to drop windows that have ended
 * - `usage:day:{date}` and `usage:day:{date}:detail`: the same for the UTC day (expire after two days)
 * - `usage:refused:{date}` sorted set: key id → refusals that day; `usage:refused:{date}:accounts` hash: key id → account id
 */

// KEYS: minute set, minute detail, minute ends, day set, day detail, refused set, refused accounts.
// ARGV: JSON {minute: [[id, used, quota, resetAtMs]...], day: [...], refused: [[keyId, accountId, n]...]},
// the day keys' TTL in seconds, the same-window tolerance in ms.
const FLUSH = `
local data = cjson.decode(ARGV[1])
local tolerance = tonumber(ARGV[3])
local function merge(set, detail, entry)
  local id, used, reset = entry[1], tonumber(entry[2]), tonumber(entry[4])
  local old = redis.call('HGET', detail, id)
  if old then
    local oldUsed, oldReset = string.match(old, '^(%d+):%d+:(%d+)$')
    oldUsed, oldReset = tonumber(oldUsed), tonumber(oldReset)
    if oldUsed and oldReset then
      if math.abs(reset - oldReset) < tolerance then
        if used < oldUsed then return false end
      elseif reset < oldReset then
        return false
      end
    end
  end
  redis.call('HSET', detail, id, entry[2] .. ':' .. entry[3] .. ':' .. entry[4])
  redis.call('ZADD', set, used / tonumber(entry[3]), id)
  return true
end
for _, entry in ipairs(data.minute) do
  if merge(KEYS[1], KEYS[2], entry) then redis.call('ZADD', KEYS[3], entry[4], entry[1]) end
end
for _, entry in ipairs(data.day) do merge(KEYS[4], KEYS[5], entry) end
for _, refusal in ipairs(data.refused) do
  redis.call('ZINCRBY', KEYS[6], refusal[3], refusal[1])
  redis.call('HSET', KEYS[7], refusal[1], refusal[2])
end
for i = 4, 7 do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[2]) end
end
return 1`;

// KEYS: a window's set and detail (and for the minute, its ends). ARGV: how many, now (ms).
// Windows that have ended are dropped first, so the answer holds only current ones.
const TOP = `
if KEYS[3] then
  local ended = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])
  for _, id in ipairs(ended) do
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  end
end
local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return {} end
local details = redis.call('HMGET', KEYS[2], unpack(ids))
local reply = {}
for i, id in ipairs(ids) do
  reply[#reply + 1] = id
  reply[#reply + 1] = details[i] or ''
end
return reply`;

// KEYS: refused set, refused accounts. ARGV: how many.
const REFUSED = `
local ranked = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local reply = {}
for i = 1, #ranked, 2 do
  reply[#reply + 1] = ranked[i]
  reply[#reply + 1] = ranked[i + 1]
  reply[#reply + 1] = redis.call('HGET', KEYS[2], ranked[i]) or ''
end
return reply`;

/**
 * The board shared by every replica on one Redis. Each replica keeps its observations in memory
 * (`UsageTally`) and sends them every second in one script call, which keeps per account the later
 * snapshot of each window and adds up the refusals. Reads take one script call on the ops path.
 */
export class RedisUsageBoard implements UsageBoard {
  private readonly redis: RedisClient;
  private readonly key: (name: string) => string;
  private readonly tally: UsageTally;
  private readonly flusher: BackgroundFlush;

  constructor({ redis, key, flushIntervalMs = 1_000, maxEntries = 200_000, onFlushError = () => undefined }: RedisUsageBoardOptions) {
    this.redis = redis;
    this.key = key;
    this.tally = new UsageTally(maxEntries);
    this.flusher = new BackgroundFlush(() => this.send(), flushIntervalMs, onFlushError);
  }

  observe(key: KeyRef, decision: LimitDecision, now: number): void {
    this.tally.observe(key, decision, now);
  }

  async top(window: WindowName, limit: number, now = Date.now()): Promise<UsageEntry[]> {
    const keys = window === 'minute' ? this.minuteKeys() : this.dayKeys(utcDate(utcDay(now)));
    const reply = (await this.call(this.redis.eval(TOP, keys.length, ...keys, limit, now))) as string[];
    const entries: UsageEntry[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      const snapshot = parseDetail(reply[i + 1]!);
      if (snapshot && snapshot.used > 0 && snapshot.resetAtMs > now) entries.push({ accountId: reply[i]!, used: snapshot.used, quota: snapshot.quota });
    }
    return entries;
  }

  async refused(limit: number, now = Date.now()): Promise<RefusedKey[]> {
    const keys = this.refusedKeys(utcDate(utcDay(now)));
    const reply = (await this.call(this.redis.eval(REFUSED, keys.length, ...keys, limit))) as string[];
    const refused: RefusedKey[] = [];
    for (let i = 0; i < reply.length; i += 3) refused.push({ keyId: reply[i]!, refused: Number(reply[i + 1]), accountId: reply[i + 2]! });
    return refused;
  }

  flush(): Promise<void> {
    return this.flusher.run();
  }

  close(): Promise<void> {
    return this.flusher.close();
  }

  private async send(): Promise<void> {
    if (this.tally.size === 0) return;
    const drained = this.tally.drain();
    const dateOfDay = (snapshot: WindowSnapshot) => utcDate(utcDay(snapshot.resetAtMs - 1));
    // One call per UTC date the observations belong to: a single one, except across midnight.
    const dates = new Set<string>([...[...drained.day.values()].map(dateOfDay), ...[...drained.refusals.values()].map((refusal) => refusal.date)]);
    if (dates.size === 0) dates.add(utcDate(utcDay(Date.now())));
    const sent = new Set<string>();
    try {
      for (const date of dates) {
        const payload = {
          minute: sent.size > 0 ? [] : [...drained.minute].map(([id, s]) => [id, String(s.used), String(s.quota), String(Math.trunc(s.resetAtMs))]),
          day: [...drained.day].filter(([, s]) => dateOfDay(s) === date).map(([id, s]) => [id, String(s.used), String(s.quota), String(Math.trunc(s.resetAtMs))]),
          refused: [...drained.refusals].filter(([, r]) => r.date === date).map(([keyId, r]) => [keyId, r.accountId, r.count]),
        };
        const keys = [...this.minuteKeys(), ...this.dayKeys(date), ...this.refusedKeys(date)];
        await this.call(this.redis.eval(FLUSH, keys.length, ...keys, JSON.stringify(payload), DAY_KEYS_TTL_SECONDS, SAME_WINDOW_TOLERANCE_MS));
        sent.add(date);
      }
    } catch (error) {
      // What was not sent goes with the next flush; what was sent must not be (refusals would count twice).
      this.tally.restore({
        minute: sent.size > 0 ? new Map() : drained.minute,
        day: new Map([...drained.day].filter(([, s]) => !sent.has(dateOfDay(s)))),
        refusals: new Map([...drained.refusals].filter(([, r]) => !sent.has(r.date))),
      });
      throw error;
    }
  }

  private call<T>(work: Promise<T>): Promise<T> {
    return storeCall(work, DEADLINE_MS, 'usage board');
  }

  private minuteKeys(): string[] {
    return [this.key('usage:minute'), this.key('usage:minute:detail'), this.key('usage:minute:ends')];
  }

  private dayKeys(date: string): string[] {
    return [this.key(`usage:day:${date}`), this.key(`usage:day:${date}:detail`)];
  }

  private refusedKeys(date: string): string[] {
    return [this.key(`usage:refused:${date}`), this.key(`usage:refused:${date}:accounts`)];
  }
}

function parseDetail(detail: string): WindowSnapshot | null {
  const match = /^(\d+):(\d+):(\d+)$/.exec(detail);
  return match ? { used: Number(match[1]), quota: Number(match[2]), resetAtMs: Number(match[3]) } : null;
}
