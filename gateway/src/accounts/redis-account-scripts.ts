/**
 * The Lua scripts of the Redis account store (`redis-account-store.ts` describes the layout). Each
 * write and the PUBLISH of its change event happen in one script, so no replica can miss a change.
 * Key names the scripts cannot know in advance are passed in by the store, which makes every name.
 */

// KEYS: account hash, creation index, search hash, then the plan indexes in PLAN_NAMES order.
// ARGV: channel, event, account id, order key, where the account's plan index is in KEYS, search
// text, where the plan indexes start in KEYS, field/value pairs (positions 1-based, from the store).
export const CREATE_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 8))
redis.call('ZADD', KEYS[2], 0, ARGV[4])
redis.call('ZADD', KEYS[tonumber(ARGV[5])], 0, ARGV[4])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[6])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

// Same KEYS and ARGV as CREATE_ACCOUNT. The account leaves every plan index but its own (it was in
// at most one), and the creation index is written again, which also indexes accounts stored before it.
export const UPDATE_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 8))
redis.call('ZADD', KEYS[2], 0, ARGV[4])
for i = tonumber(ARGV[7]), #KEYS do redis.call('ZREM', KEYS[i], ARGV[4]) end
redis.call('ZADD', KEYS[tonumber(ARGV[5])], 0, ARGV[4])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[6])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

/**
 * One page of an index. KEYS: the index (creation or one plan's), the search hash.
 * ARGV: where to start (a ZRANGEBYLEX bound: '-' or '(' .. order key), how many to find, the search
 * text ('' matches all), how many entries this call may look at, where the id starts in an order key
 * (1-based, from `ORDER_KEY_ID_OFFSET`). Returns {exhausted (0/1), the last
 * order key looked at, the order keys found...}: the caller calls again from the last one looked at
 * until it has enough or the index is exhausted, so no single call holds Redis for long.
 */
export const LIST_ACCOUNTS = `
local from, wanted, search, budget, idStart = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local found, last, looked = {}, '', 0
while looked < budget do
  local chunk = redis.call('ZRANGEBYLEX', KEYS[1], from, '+', 'LIMIT', 0, math.min(256, budget - looked))
  if #chunk == 0 then return {1, last, unpack(found)} end
  for _, orderKey in ipairs(chunk) do
    looked = looked + 1
    last = orderKey
    if search == '' then
      found[#found + 1] = orderKey
    else
      local text = redis.call('HGET', KEYS[2], string.sub(orderKey, idStart))
      if text and string.find(text, search, 1, true) then found[#found + 1] = orderKey end
    end
    if #found >= wanted then return {0, last, unpack(found)} end
  end
  from = '(' .. last
end
return {0, last, unpack(found)}`;

/** Entries one LIST_ACCOUNTS call may look at by default: a few milliseconds of Redis time at most. */
export const LIST_BUDGET = 5_000;

// KEYS: the last-used hash. ARGV: key id, Unix ms, key id, Unix ms... A later time than the one there wins.
export const RECORD_KEY_USE = `
for i = 1, #ARGV, 2 do
  local at = tonumber(ARGV[i + 1])
  if at > tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0') then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1`;

/**
 * Lua: whether the account's key-set version (KEYS[versionKey]: keys ever added, as
 * `AccountStore.keySetVersion`) is not the one the caller read. `check` is '1' to compare, '0' when
 * the caller read none. A write that goes ahead INCRs the version.
 */
const KEY_SET_CHANGED = `
local function keySetChanged(versionKey, check, seenVersion)
  return check == '1' and (redis.call('GET', versionKey) or '0') ~= seenVersion
end
`;

// KEYS: key hash, hash index, the account's key set, its key-set version. ARGV: channel, event, key
// id, the seen check ('1' or '0'), the version seen, field/value pairs.
// Returns 1, or 0 (the id exists), -1 (the hash exists), -2 (the account's keys changed).
export const ADD_KEY = `${KEY_SET_CHANGED}
if keySetChanged(KEYS[4], ARGV[4], ARGV[5]) then return -2 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('SET', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('INCR', KEYS[4])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

// KEYS: key hash. ARGV: channel, revokedAt, key id. Only an active key gets the time (see AccountStore.revokeKey).
export const REVOKE_KEY = `
local hash = redis.call('HGET', KEYS[1], 'hash')
if not hash then return 0 end
if redis.call('HGET', KEYS[1], 'revokedAt') == '' then redis.call('HSET', KEYS[1], 'revokedAt', ARGV[2]) end
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'key', keyId = ARGV[3], hash = hash }))
return 1`;

// KEYS: the last-used hash, then the key records to remove. ARGV: channel, now (ISO), the hash
// index's name before the hash, the account key set's name before and after the account id (the
// hash and the account are read in here: `RedisAccountKeys` gives the parts), then the keys' ids in
// KEYS' order. Which keys go is the store's rule (retired-keys.ts); this only makes sure that none
// of them works at `now` (revoked, or expired), so a key in use is never removed. Every name shares
// the prefix's hash slot. Returns the ids removed.
export const REMOVE_RETIRED_KEYS = `
local removed = {}
for i = 2, #KEYS do
  local id = ARGV[4 + i]
  local fields = redis.call('HMGET', KEYS[i], 'hash', 'accountId', 'revokedAt', 'expiresAt')
  local hash, accountId, revokedAt, expiresAt = fields[1], fields[2], fields[3], fields[4]
  local retired = (revokedAt and revokedAt ~= '') or (expiresAt and expiresAt ~= '' and expiresAt <= ARGV[2])
  if hash and accountId and retired then
    redis.call('DEL', KEYS[i])
    if redis.call('GET', ARGV[3] .. hash) == id then redis.call('DEL', ARGV[3] .. hash) end
    redis.call('SREM', ARGV[4] .. accountId .. ARGV[5], id)
    redis.call('HDEL', KEYS[1], id)
    redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'key', keyId = id, hash = hash }))
    removed[#removed + 1] = id
  end
end
return removed`;

// KEYS: the old key's hash, the replacement's hash, its hash index entry, the account's key set, its
// key-set version. ARGV: channel, now (ISO), the old key's new expiry (ISO), the replacement's id,
// the replacement's event, the old key's id, the seen check and the version seen (as ADD_KEY's),
// the replacement's field/value pairs. ISO times in UTC as toISOString writes them compare as
// strings. Returns {outcome}: 'rolled', or why not ('unknown', 'revoked', 'replaced', 'expired'), or
// 'id', 'hash' or 'account' when the replacement collides with a key or belongs to another account,
// or 'changed' when the account's keys changed since the caller saw them. Nothing is written unless
// it is 'rolled'.
export const ROLL_KEY = `${KEY_SET_CHANGED}
local old = redis.call('HMGET', KEYS[1], 'hash', 'revokedAt', 'replacedBy', 'expiresAt', 'accountId')
if not old[1] then return {'unknown'} end
if old[2] and old[2] ~= '' then return {'revoked'} end
if old[3] and old[3] ~= '' then return {'replaced'} end
if old[4] and old[4] ~= '' and old[4] <= ARGV[2] then return {'expired'} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {'id'} end
if redis.call('EXISTS', KEYS[3]) == 1 then return {'hash'} end
local fields = {}
for i = 9, #ARGV, 2 do fields[ARGV[i]] = ARGV[i + 1] end
if fields['accountId'] ~= old[5] then return {'account'} end
if keySetChanged(KEYS[5], ARGV[7], ARGV[8]) then return {'changed'} end
redis.call('HSET', KEYS[2], unpack(ARGV, 9))
redis.call('SET', KEYS[3], ARGV[4])
redis.call('SADD', KEYS[4], ARGV[4])
redis.call('INCR', KEYS[5])
local expiresAt = ARGV[3]
if old[4] and old[4] ~= '' and old[4] < expiresAt then expiresAt = old[4] end
redis.call('HSET', KEYS[1], 'expiresAt', expiresAt, 'replacedBy', ARGV[4])
redis.call('PUBLISH', ARGV[1], ARGV[5])
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'key', keyId = ARGV[6], hash = old[1] }))
return {'rolled'}`;

// KEYS: the hash index entry, the plans hash. ARGV: the names of a key record and of an account
// without their ids (built by the store's key helpers), since the ids are only known in here.
// Every name shares the prefix's hash slot, so on a cluster the undeclared ones are local too.
// Returns nil for an unknown hash, else { key fields, account fields, the plan's stored numbers or nil }.
export const RESOLVE_KEY = `
local id = redis.call('GET', KEYS[1])
if not id then return false end
local key = redis.call('HGETALL', ARGV[1] .. id)
local accountId
for i = 1, #key, 2 do if key[i] == 'accountId' then accountId = key[i + 1] end end
if not accountId then return { key, {}, false } end
local account = redis.call('HGETALL', ARGV[2] .. accountId)
local plan = false
for i = 1, #account, 2 do if account[i] == 'plan' then plan = redis.call('HGET', KEYS[2], account[i + 1]) end end
return { key, account, plan }`;
