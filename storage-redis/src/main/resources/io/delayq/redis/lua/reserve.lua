-- reserve: leases up to max due jobs of one partition and lane, earliest runAt first; also drops finished
-- records past the retention (up to 2 × max + 8, oldest first), so trimming keeps pace with finishing.
-- Every record is parsed before anything changes: a record the script cannot parse is moved, raw, to the quarantine
-- stream (and out of the job hash and the index) instead of failing the call, so it costs the other jobs nothing.
-- KEYS[1] jobs HASH, KEYS[2] scheduled ZSET of the lane, KEYS[3] leased ZSET, KEYS[4] finished ZSET,
-- KEYS[5] quarantine STREAM
-- ARGV[1] max (at most 9999), ARGV[2] default lease ms (used when the job has no timeout),
-- ARGV[3] lease tokens: max tokens of 22 characters each, one after the other, drawn by the caller from a CSPRNG
-- (Lua has none); lease i gets the i-th, so no two leases share anything but their length,
-- ARGV[4] finished retention ms
-- Returns {now, nextDueAt or -1, q, then q pairs of quarantined id and reason, then id1, token1, deadline1, record1,
-- id2, ...}
--#include lib/record.lua

local jobs, scheduled, leased, finished, quarantine = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local max, default_lease, tokens = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local now = now_ms()
local due = redis.call('ZRANGEBYSCORE', scheduled, '-inf', now, 'LIMIT', 0, max)
if #tokens < 22 * #due then
  return redis.error_reply('reserve: ' .. #due .. ' due jobs but ' .. math.floor(#tokens / 22) .. ' lease tokens')
end

-- The leased record, its token and deadline; runs under pcall, before any write.
local function lease(rec, i)
  local meta, payload = split_record(rec)
  local token = string.sub(tokens, 22 * i - 21, 22 * i)
  local deadline = now + (meta.to or default_lease)
  meta.s = 'L'
  meta.a = (meta.a or 0) + 1
  meta.t = token
  return join_record(meta, payload), token, deadline
end

local leases, bad = parse_all(jobs, due, lease)
-- every due id leaves the index: leased, quarantined, or an index entry without a record
call_chunked('ZREM', scheduled, due)
local out = { string.format('%d', now), '-1', #bad }
quarantine_records(jobs, quarantine, bad, 'reserve', out)
for _, l in ipairs(leases) do
  local id, rec, token, deadline = l[1], l[2], l[3], l[4]
  redis.call('HSET', jobs, id, rec)
  redis.call('ZADD', leased, deadline, id)
  out[#out + 1] = id
  out[#out + 1] = token
  out[#out + 1] = string.format('%d', deadline)
  out[#out + 1] = rec
end
local next_due = earliest(scheduled)
if next_due then out[2] = string.format('%d', next_due) end
trim_finished(jobs, finished, now, tonumber(ARGV[4]), 2 * max + 8)
return out
