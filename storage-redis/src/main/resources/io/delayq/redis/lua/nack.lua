-- nack: records a failed attempt; schedules the job again after a delay, or makes it DEAD (outbox).
-- The job also dies when it has used all its attempts, whatever the delay says.
-- A held nack (an open circuit breaker postponed the job) is no attempt: the job is scheduled again after the delay
-- with its attempt number given back (attempts - 1, as reschedule gives a leased job's attempt back), so holding never
-- uses up an attempt nor kills the job, even on its last attempt; its history entry is marked h = 1, and the reason
-- is not the job's last error (nothing failed).
-- KEYS[1] jobs HASH, KEYS[2] leased ZSET, KEYS[3] scheduled:push ZSET, KEYS[4] scheduled:pull ZSET,
-- KEYS[5] finished ZSET, KEYS[6] archive STREAM, KEYS[7] stats HASH
-- ARGV[1] id, ARGV[2] lease token, ARGV[3] retry delay ms (-1 = dead now), ARGV[4] error text,
-- ARGV[5] http status ('' when none), ARGV[6] finished retention ms, ARGV[7] history cap, ARGV[8] topic,
-- ARGV[9] '1' when the job is held, else '0', ARGV[10] the dead cause should the job die (DeadCause name; '' or
-- absent: ATTEMPTS_EXHAUSTED)
-- A job that would be due again only after its own expiry (ex; now > ex already, or now + delay > ex) is not put back:
-- it is DEAD with cause EXPIRED (outbox), held or not, since it could not be delivered by then. A job that dies of
-- the failure anyway keeps the failure's cause.
-- Returns 1 OK (scheduled again), 2 OK (dead), 3 OK (dead of its expiry), -1 NOT_FOUND, -3 STALE_LEASE
--#include lib/record.lua

local jobs, leased, push, pull, finished, archive, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local id, token, delay = ARGV[1], ARGV[2], tonumber(ARGV[3])
local held = ARGV[9] == '1'
local rec = redis.call('HGET', jobs, id)
if not rec then return -1 end
local meta, payload = split_record(rec)
if meta.s ~= 'L' or meta.t ~= token then return -3 end
local now = now_ms()
redis.call('ZREM', leased, id)
local entry = { n = meta.a, t = now }
if ARGV[4] ~= '' then
  entry.e = ARGV[4]
  if not held then meta.e = ARGV[4] end
end
if ARGV[5] ~= '' then entry.c = tonumber(ARGV[5]) end
if held then
  entry.h = 1
  meta.a = (meta.a or 1) - 1
end
add_history(meta, entry, tonumber(ARGV[7]))
if not held and (delay < 0 or (meta.a or 0) >= (meta.m or 1)) then
  meta.s = 'D'
  if ARGV[10] and ARGV[10] ~= '' then meta.dc = ARGV[10] else meta.dc = 'ATTEMPTS_EXHAUSTED' end
  finish(jobs, finished, archive, id, meta, payload, now, true)
  redis.call('HINCRBY', stats, 'dead', 1)
  trim_finished(jobs, finished, now, tonumber(ARGV[6]), 4)
  return 2
end
local due = now + delay
local expiry = expiry_of(meta, 0)
if expiry and due > expiry then
  store_finished(jobs, finished, archive, id, expired_record(meta, payload, expiry, now), now, true)
  redis.call('HINCRBY', stats, 'dead', 1)
  trim_finished(jobs, finished, now, tonumber(ARGV[6]), 4)
  return 3
end
local zset = lane_key(meta, push, pull)
local before = earliest(zset)
meta.s = 'S'
meta.t = nil
meta.r = due
redis.call('HSET', jobs, id, join_record(meta, payload))
redis.call('ZADD', zset, due, id)
wake_if_earlier(ARGV[8], lane_name(meta), before, due)
return 1
