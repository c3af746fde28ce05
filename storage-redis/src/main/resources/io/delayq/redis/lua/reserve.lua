-- reserve: leases up to max due jobs of one partition and lane, earliest runAt first; also drops finished
-- records past the retention (up to 2 × max + 8, oldest first), so trimming keeps pace with finishing.
-- KEYS[1] jobs HASH, KEYS[2] scheduled ZSET of the lane, KEYS[3] leased ZSET, KEYS[4] finished ZSET
-- ARGV[1] max (at most 9999), ARGV[2] default lease ms (used when the job has no timeout),
-- ARGV[3] token base: random decimal digits from the caller; lease i gets token base .. %04d(i),
-- ARGV[4] finished retention ms
-- Returns {now, nextDueAt or -1, id1, token1, deadline1, record1, id2, ...}
--#include lib/record.lua

local jobs, scheduled, leased, finished = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local max, default_lease, token_base = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local now = now_ms()
local out = { string.format('%d', now), '-1' }
local due = redis.call('ZRANGEBYSCORE', scheduled, '-inf', now, 'LIMIT', 0, max)
call_chunked('ZREM', scheduled, due)
for i, id in ipairs(due) do
  local rec = redis.call('HGET', jobs, id)
  if rec then
    local meta, payload = split_record(rec)
    local token = token_base .. string.format('%04d', i)
    local deadline = now + (meta.to or default_lease)
    meta.s = 'L'
    meta.a = (meta.a or 0) + 1
    meta.t = token
    rec = join_record(meta, payload)
    redis.call('HSET', jobs, id, rec)
    redis.call('ZADD', leased, deadline, id)
    out[#out + 1] = id
    out[#out + 1] = token
    out[#out + 1] = string.format('%d', deadline)
    out[#out + 1] = rec
  end
end
local next_due = earliest(scheduled)
if next_due then out[2] = string.format('%d', next_due) end
trim_finished(jobs, finished, now, tonumber(ARGV[4]), 2 * max + 8)
return out
