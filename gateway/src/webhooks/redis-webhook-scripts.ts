/** The webhook store's Lua scripts: each reads and writes keys of one hash tag, atomically. */

// KEYS: the account's endpoint set. ARGV: max, creation ms, endpoint id.
export const ADD_TO_ACCOUNT = `
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
return 1`;

// KEYS: endpoint. ARGV: at ms. Returns failingSince, or false when the endpoint is gone.
export const NOTE_FAILURE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSETNX', KEYS[1], 'failingSince', ARGV[1])
return redis.call('HGET', KEYS[1], 'failingSince')`;

// KEYS: endpoint. ARGV: at (RFC 3339). 1 only for the call that disabled it.
export const DISABLE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], 'disabledAt', ARGV[1])`;

// KEYS: endpoint, deliveries, order. ARGV: event id, record JSON, queued ms, kept, only-if-absent (1/0).
// Returns 1 when written. The oldest records beyond "kept" go.
export const SAVE_DELIVERY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[5] == '1' and redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
local extra = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[4])
if extra > 0 then
  local oldest = redis.call('ZRANGE', KEYS[3], 0, extra - 1)
  redis.call('ZREM', KEYS[3], unpack(oldest))
  redis.call('HDEL', KEYS[2], unpack(oldest))
end
return 1`;
