import type { RedisClient } from '../redis';
import { HISTORY_DAYS_KEPT } from './types';

/**
 * The Lua side of the Redis limiter. One script call per request checks the key's ban and both of
 * the account's windows and counts the request only when everything accepts it, so no
 * interleaving of replicas can let a 61st request through a 60/min window, and a request refused
 * by one window never costs anything in the other.
 *
 * The clock is Redis `TIME`: every replica then agrees on when a minute ends and on which UTC day
 * it is, and it is the same clock Redis uses to expire the keys. Redis 7 always replicates scripts
 * by effects; on 5 and 6 `replicate_commands` opts in, which is what makes TIME legal before a write.
 *
 * Keys (all tagged with the account, so on a cluster they share one hash slot): the minute counter
 * (60 s TTL from the first accepted request); the day counters, one per UTC day number, each kept
 * 35 days (`HISTORY_DAYS_KEPT`) so the account's daily history costs nothing more on the request
 * path; the key's ban marker; the key's rejection counter (60 s TTL from its first rejection).
 *
 * Which day counter is today's is decided by `TIME`, so midnight is exact. A script must name every
 * key it touches (Redis Cluster routes and checks by them), so the gateway passes the counters of
 * its own yesterday, today and tomorrow and the script picks the one that is today by Redis's
 * clock; a gateway clock more than a day off is refused as a store failure.
 */

const CLOCK = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local today = math.floor(now / 86400000)
local dayTtl = (today + 1) * 86400000 - now
local gatewayDay = tonumber(ARGV[1])
if today < gatewayDay - 1 or today > gatewayDay + 1 then
  return redis.error_reply('gateway clock is more than a day away from Redis TIME')
end
local dayKey = KEYS[3 + today - gatewayDay]
`;

/** KEYS[1] the minute counter, KEYS[2..4] the day counters around ARGV[1] (the gateway's UTC day number). */
const READ_WINDOWS = `
local minute = tonumber(redis.call('GET', KEYS[1]) or '0')
local minuteTtl = redis.call('PTTL', KEYS[1])
local minuteLacksTtl = minute > 0 and minuteTtl < 0
if minute == 0 or minuteTtl < 0 then minuteTtl = 60000 end
local day = tonumber(redis.call('GET', dayKey) or '0')
`;

/** How long a day counter is kept after its day ends, so the last 35 days (today included) are known. */
const DAY_KEPT_AFTER_MS = (HISTORY_DAYS_KEPT - 1) * 86_400_000;

/**
 * KEYS: minute, day before, day, day after (by the gateway's clock), ban, rejections.
 * ARGV: the gateway's UTC day number, perMinute, perDay, ban threshold (0: never), ban ms.
 */
export const CONSUME_LUA = `${CLOCK}${READ_WINDOWS}
local banTtl = redis.call('PTTL', KEYS[5])
if banTtl > 0 then return {3, minute, minuteTtl, day, dayTtl, banTtl, 0} end

local perMinute = tonumber(ARGV[2])
local perDay = tonumber(ARGV[3])
local minuteFull = minute >= perMinute
local dayFull = day >= perDay
if not minuteFull and not dayFull then
  if minute == 0 then
    redis.call('SET', KEYS[1], 1, 'PX', 60000)
  else
    redis.call('INCR', KEYS[1])
    -- A counter without a TTL (written by hand, say) would otherwise refuse the account forever.
    if minuteLacksTtl then redis.call('PEXPIRE', KEYS[1], 60000) end
  end
  if day == 0 then
    redis.call('SET', dayKey, 1, 'PX', dayTtl + ${DAY_KEPT_AFTER_MS})
  else
    redis.call('INCR', dayKey)
  end
  return {0, minute + 1, minuteTtl, day + 1, dayTtl, 0, 0}
end

local rejections = redis.call('INCR', KEYS[6])
if rejections == 1 then redis.call('PEXPIRE', KEYS[6], 60000) end
local threshold = tonumber(ARGV[4])
if threshold > 0 and rejections >= threshold then
  local banMs = tonumber(ARGV[5])
  redis.call('SET', KEYS[5], 1, 'PX', banMs)
  redis.call('DEL', KEYS[6])
  return {3, minute, minuteTtl, day, dayTtl, banMs, 0}
end
local binding = 1
if dayFull and (not minuteFull or dayTtl >= minuteTtl) then binding = 2 end
return {binding, minute, minuteTtl, day, dayTtl, rejections, redis.call('PTTL', KEYS[6])}
`;

/** KEYS: minute, day before, day, day after. ARGV: the gateway's UTC day number. Reads without counting. */
export const USAGE_LUA = `${CLOCK}${READ_WINDOWS}
return {minute, minuteTtl, day, dayTtl}
`;

/** KEYS: ban, rejections. ARGV: ban ms. Used when a replica reaches the threshold on locally answered rejections. */
export const BAN_LUA = `
redis.call('SET', KEYS[1], 1, 'PX', tonumber(ARGV[1]))
redis.call('DEL', KEYS[2])
return 1
`;

type Args = (string | number)[];

/** A Redis client with the scripts registered on it, as commands. */
export type ScriptClient = RedisClient & {
  rlGatewayConsume(...args: Args): Promise<unknown>;
  rlGatewayUsage(...args: Args): Promise<unknown>;
  rlGatewayBan(...args: Args): Promise<unknown>;
};

/** Registered on the client (idempotent), so calls go out as EVALSHA and ioredis reloads them after a Redis restart. */
export function defineScripts(redis: RedisClient): ScriptClient {
  redis.defineCommand('rlGatewayConsume', { numberOfKeys: 6, lua: CONSUME_LUA });
  redis.defineCommand('rlGatewayUsage', { numberOfKeys: 4, lua: USAGE_LUA });
  redis.defineCommand('rlGatewayBan', { numberOfKeys: 2, lua: BAN_LUA });
  return redis as ScriptClient;
}

/** The commands the scripts issue themselves (they show up in INFO commandstats too). */
export const SCRIPT_INNER_COMMANDS = ['time', 'get', 'pttl', 'set', 'incr', 'pexpire', 'del'] as const;

export type ConsumeReply =
  | { status: 'allowed'; minute: number; minuteTtlMs: number; day: number; dayTtlMs: number }
  | { status: 'limited'; binding: 'minute' | 'day'; minute: number; minuteTtlMs: number; day: number; dayTtlMs: number; rejections: number; rejectionsTtlMs: number }
  | { status: 'banned'; minute: number; minuteTtlMs: number; day: number; dayTtlMs: number; banTtlMs: number };

export function parseConsumeReply(raw: unknown): ConsumeReply {
  const [code, minute = 0, minuteTtlMs = 0, day = 0, dayTtlMs = 0, a = 0, b = 0] = numbers(raw, 7);
  const windows = { minute, minuteTtlMs, day, dayTtlMs };
  switch (code) {
    case 0:
      return { status: 'allowed', ...windows };
    case 1:
    case 2:
      return { status: 'limited', binding: code === 1 ? 'minute' : 'day', ...windows, rejections: a, rejectionsTtlMs: b > 0 ? b : 60_000 };
    case 3:
      return { status: 'banned', ...windows, banTtlMs: a };
    default:
      throw new Error(`rate limiter script returned an unknown status ${String(code)}`);
  }
}

export function parseUsageReply(raw: unknown): { minute: number; minuteTtlMs: number; day: number; dayTtlMs: number } {
  const [minute = 0, minuteTtlMs = 0, day = 0, dayTtlMs = 0] = numbers(raw, 4);
  return { minute, minuteTtlMs, day, dayTtlMs };
}

function numbers(raw: unknown, length: number): number[] {
  if (!Array.isArray(raw) || raw.length !== length) throw new Error('rate limiter script returned an unexpected reply');
  return raw.map((value) => {
    const n = Number(value);
    if (!Number.isFinite(n)) throw new Error('rate limiter script returned a non-numeric value');
    return n;
  });
}
