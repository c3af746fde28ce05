-- reserve: leases up to max due jobs of one partition and lane, earliest runAt first; also drops finished
-- records past the retention (up to 2 × max + 8, oldest first), so trimming keeps pace with finishing.
-- Every record is parsed before anything changes: a record the script cannot parse is moved, raw, to the quarantine
-- stream (and out of the job hash and the index) instead of failing the call, so it costs the other jobs nothing.
-- KEYS[1] jobs HASH, KEYS[2] scheduled ZSET of the lane, KEYS[3] leased ZSET, KEYS[4] finished ZSET,
-- KEYS[5] quarantine STREAM, KEYS[6] archive STREAM, KEYS[7] stats HASH
-- ARGV[1] max (at most 9999), ARGV[2] default lease ms (used when the job has no timeout),
-- ARGV[3] lease tokens: max tokens of 22 characters each, one after the other, drawn by the caller from a CSPRNG
-- (Lua has none); lease i gets the i-th, so no two leases share anything but their length,
-- ARGV[4] finished retention ms, ARGV[5] the topic's expiresAfter ms (0: none)
-- A due job whose expiry passed (expiry_of) is not leased: it is DEAD with cause EXPIRED, into the outbox, here.
-- Returns {now, nextDueAt or -1, q, expired, then q pairs of quarantined id and reason, then id1, token1, deadline1,
-- record1, id2, ...}
--#include lib/record.lua

local jobs, scheduled, leased, finished, quarantine = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local archive, stats = KEYS[6], KEYS[7]
local max, default_lease, tokens = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local expires_after = tonumber(ARGV[5] or '0')
local now = now_ms()
local due = redis.call('ZRANGEBYSCORE', scheduled, '-inf', now, 'LIMIT', 0, max)
if #tokens < 22 * #due then
  return redis.error_reply('reserve: ' .. #due .. ' due jobs but ' .. math.floor(#tokens / 22) .. ' lease tokens')
end

-- The leased record, its token and deadline (or the dead record of an expired job, false, 0, true); runs under pcall,
-- before any write.
local function lease(rec, i)
  local meta, payload = split_record(rec)
  local expiry = expiry_of(meta, expires_after)
  if expiry and now > expiry then
    return expired_record(meta, payload, expiry, now), false, 0, true
  end
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
local out = { string.format('%d', now), '-1', #bad, 0 }
quarantine_records(jobs, quarantine, bad, 'reserve', out)
-- the batch's writes go out together: one HSET of every record, one ZADD per index (see call_chunked)
local records, by_deadline, finished_now = {}, {}, {}
local expired = 0
for _, l in ipairs(leases) do
  local id, rec, token, deadline = l[1], l[2], l[3], l[4]
  records[#records + 1] = id
  records[#records + 1] = rec
  if l[5] then
    finished_now[#finished_now + 1] = now
    finished_now[#finished_now + 1] = id
    redis.call('XADD', archive, '*', 'i', id, 'r', rec)
    expired = expired + 1
  else
    by_deadline[#by_deadline + 1] = deadline
    by_deadline[#by_deadline + 1] = id
    out[#out + 1] = id
    out[#out + 1] = token
    out[#out + 1] = string.format('%d', deadline)
    out[#out + 1] = rec
  end
end
call_chunked('HSET', jobs, records)
call_chunked('ZADD', leased, by_deadline)
call_chunked('ZADD', finished, finished_now)
if expired > 0 then
  redis.call('HINCRBY', stats, 'dead', expired)
  out[4] = expired
end
local next_due = earliest(scheduled)
if next_due then out[2] = string.format('%d', next_due) end
trim_finished(jobs, finished, now, tonumber(ARGV[4]), 2 * max + 8)
return out
