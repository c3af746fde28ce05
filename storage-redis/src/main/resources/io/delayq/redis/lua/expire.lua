-- expire: takes back leases whose deadline has passed; each counts as a failed attempt ("lease expired"):
-- due again at once, or DEAD (outbox) when the job has no attempts left.
-- KEYS[1] jobs HASH, KEYS[2] leased ZSET, KEYS[3] scheduled:push ZSET, KEYS[4] scheduled:pull ZSET,
-- KEYS[5] finished ZSET, KEYS[6] archive STREAM, KEYS[7] stats HASH
-- ARGV[1] max, ARGV[2] finished retention ms, ARGV[3] history cap, ARGV[4] topic
-- Returns the number of leases taken back.
--#include lib/record.lua

local jobs, leased, push, pull, finished, archive, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local now = now_ms()
local expired = redis.call('ZRANGEBYSCORE', leased, '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local before = { [push] = earliest(push), [pull] = earliest(pull) }
local rescheduled = {}
local dead = 0
for _, id in ipairs(expired) do
  redis.call('ZREM', leased, id)
  local rec = redis.call('HGET', jobs, id)
  if rec then
    local meta, payload = split_record(rec)
    add_history(meta, { n = meta.a, t = now, e = 'lease expired' }, tonumber(ARGV[3]))
    meta.e = 'lease expired'
    if (meta.a or 0) >= (meta.m or 1) then
      meta.s = 'D'
      finish(jobs, finished, archive, id, meta, payload, now, true)
      dead = dead + 1
    else
      meta.s = 'S'
      meta.t = nil
      meta.r = now
      redis.call('HSET', jobs, id, join_record(meta, payload))
      local zset = lane_key(meta, push, pull)
      redis.call('ZADD', zset, now, id)
      rescheduled[zset] = lane_name(meta)
    end
  end
end
if dead > 0 then
  redis.call('HINCRBY', stats, 'dead', dead)
  trim_finished(jobs, finished, now, tonumber(ARGV[2]), 4 + dead)
end
for zset, lane in pairs(rescheduled) do
  wake_if_earlier(ARGV[4], lane, before[zset], now)
end
return #expired
