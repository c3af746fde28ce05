-- reschedule: moves a scheduled or leased job to a new run time (a leased job's token goes stale). The attempt of a
-- leased job is withdrawn, not used up: its number is given back (the next lease gets it again, so no attempt number
-- exceeds maxAttempts) and the history says it was interrupted.
-- KEYS[1] jobs HASH, KEYS[2] scheduled:push ZSET, KEYS[3] scheduled:pull ZSET, KEYS[4] leased ZSET
-- ARGV[1] id, ARGV[2] delay ms ('' when runAt is given), ARGV[3] runAt ms ('' when delay is given), ARGV[4] topic,
-- ARGV[5] history cap
-- Returns {1, record} rescheduled, {-1} NOT_FOUND, {-4, record} NOT_IN_STATE (already finished)
--#include lib/record.lua

local jobs, push, pull, leased = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id = ARGV[1]
local rec = redis.call('HGET', jobs, id)
if not rec then return { -1 } end
local meta, payload = split_record(rec)
if meta.s ~= 'S' and meta.s ~= 'L' then return { -4, rec } end
local now = now_ms()
local due
if ARGV[2] ~= '' then due = now + tonumber(ARGV[2]) else due = tonumber(ARGV[3]) end
local zset = lane_key(meta, push, pull)
if meta.s == 'L' then
  add_history(meta, { n = meta.a, t = now, e = 'rescheduled during the attempt; the attempt does not count' },
    tonumber(ARGV[5]))
  meta.a = (meta.a or 1) - 1
  redis.call('ZREM', leased, id)
end
redis.call('ZREM', zset, id)
local before = earliest(zset)
meta.s = 'S'
meta.t = nil
meta.r = due
rec = join_record(meta, payload)
redis.call('HSET', jobs, id, rec)
redis.call('ZADD', zset, due, id)
wake_if_earlier(ARGV[4], lane_name(meta), before, due)
return { 1, rec }
