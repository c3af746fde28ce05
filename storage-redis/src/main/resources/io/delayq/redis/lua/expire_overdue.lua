-- expire_overdue: the safety sweep for expired jobs nobody reserves (a paused topic, a pull lane without consumers):
-- looks at the lane's max earliest due jobs and makes those whose expiry passed (expiry_of) DEAD with cause EXPIRED,
-- into the outbox, as reserve.lua does; the others stay as they are. A record the script cannot parse is left for
-- reserve.lua, which quarantines it.
-- KEYS[1] jobs HASH, KEYS[2] scheduled ZSET of the lane, KEYS[3] finished ZSET, KEYS[4] archive STREAM,
-- KEYS[5] stats HASH
-- ARGV[1] max, ARGV[2] the topic's expiresAfter ms (0: none), ARGV[3] finished retention ms
-- Returns the number of jobs that expired.
--#include lib/record.lua

local jobs, scheduled, finished, archive, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local expires_after = tonumber(ARGV[2])
local now = now_ms()
local due = redis.call('ZRANGEBYSCORE', scheduled, '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))

local function check(rec)
  local meta, payload = split_record(rec)
  local expiry = expiry_of(meta, expires_after)
  if expiry and now > expiry then
    return expired_record(meta, payload, expiry, now)
  end
  return false
end

local checked = parse_all(jobs, due, check)
local expired = 0
for _, c in ipairs(checked) do
  local id, rec = c[1], c[2]
  if rec then
    redis.call('ZREM', scheduled, id)
    store_finished(jobs, finished, archive, id, rec, now, true)
    expired = expired + 1
  end
end
if expired > 0 then
  redis.call('HINCRBY', stats, 'dead', expired)
  trim_finished(jobs, finished, now, tonumber(ARGV[3]), 4 + expired)
end
return expired
