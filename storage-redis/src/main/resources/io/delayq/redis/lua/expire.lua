-- expire: takes back leases whose deadline has passed. An expired lease is an unknown outcome (the callback may have
-- answered 2xx and the ack been lost). Before the last attempt it counts as a failed attempt ("lease expired"): due
-- again at once. On the last attempt the job is due again at once under the same attempt number, without using the
-- attempt up, at most ARGV[5] times in its life (counted in the record's u); after that it is DEAD (outbox) with a
-- last error that says the outcome is unknown.
-- A job that would be due again but whose own expiry (ex) has passed is not: it is DEAD with cause EXPIRED (outbox),
-- as reserve.lua would make it at its next reserve; a job that dies of its expired last attempt keeps LEASE_EXPIRED.
-- Every record is parsed before anything changes: a record the script cannot parse is moved, raw, to the quarantine
-- stream (and out of the job hash and the index) instead of failing the call, so it costs the other leases nothing.
-- KEYS[1] jobs HASH, KEYS[2] leased ZSET, KEYS[3] scheduled:push ZSET, KEYS[4] scheduled:pull ZSET,
-- KEYS[5] finished ZSET, KEYS[6] archive STREAM, KEYS[7] stats HASH, KEYS[8] quarantine STREAM
-- ARGV[1] max, ARGV[2] finished retention ms, ARGV[3] history cap, ARGV[4] topic,
-- ARGV[5] how many times a job's expired last attempt is tried again (JobStore.EXPIRED_LAST_ATTEMPT_RETRIES)
-- Returns {number of leases taken back, number of those made dead of their expiry, number of those made dead of their
-- expired last attempt (LEASE_EXPIRED), then pairs of quarantined id and reason}.
--#include lib/record.lua

local jobs, leased, push, pull, finished, archive, stats, quarantine =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local cap, last_attempt_retries = tonumber(ARGV[3]), tonumber(ARGV[5])
local now = now_ms()
local expired = redis.call('ZRANGEBYSCORE', leased, '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local before = { [push] = earliest(push), [pull] = earliest(pull) }

-- The record after the expiry and the job's fate ('again', 'dead' or 'expired'); runs under pcall, before any write.
local function expire(rec)
  local meta, payload = split_record(rec)
  local attempt = meta.a or 0
  meta.t = nil
  local last = attempt >= (meta.m or 1)
  if last and (meta.u or 0) >= last_attempt_retries then
    add_history(meta, { n = attempt, t = now, e = 'lease expired' }, cap)
    meta.e = 'lease expired on the last attempt: outcome unknown (no answer was recorded; the callback may have'
      .. ' succeeded)'
    meta.s = 'D'
    meta.dc = 'LEASE_EXPIRED'
    return finished_record(meta, payload, now), 'dead'
  end
  local expiry = expiry_of(meta, 0)
  if expiry and now > expiry then
    add_history(meta, { n = attempt, t = now, e = 'lease expired' }, cap)
    return expired_record(meta, payload, expiry, now), 'expired'
  end
  if last then
    add_history(meta, { n = attempt, t = now, e = 'lease expired on the last attempt: outcome unknown, tried again' },
      cap)
    meta.u = (meta.u or 0) + 1
    meta.a = attempt - 1
  else
    add_history(meta, { n = attempt, t = now, e = 'lease expired' }, cap)
  end
  meta.e = 'lease expired'
  meta.s = 'S'
  meta.r = now
  return join_record(meta, payload), 'again', lane_key(meta, push, pull), lane_name(meta)
end

local taken, bad = parse_all(jobs, expired, expire)
-- every expired id leaves the index: taken back, quarantined, or an index entry without a record
call_chunked('ZREM', leased, expired)
local rescheduled = {}
local dead, expired_now = 0, 0
for _, t in ipairs(taken) do
  local id, rec, fate, zset, lane = t[1], t[2], t[3], t[4], t[5]
  if fate ~= 'again' then
    store_finished(jobs, finished, archive, id, rec, now, true)
    dead = dead + 1
    if fate == 'expired' then expired_now = expired_now + 1 end
  else
    redis.call('HSET', jobs, id, rec)
    redis.call('ZADD', zset, now, id)
    rescheduled[zset] = lane
  end
end
local out = { #expired, expired_now, dead - expired_now }
quarantine_records(jobs, quarantine, bad, 'expire', out)
if dead > 0 then
  redis.call('HINCRBY', stats, 'dead', dead)
  trim_finished(jobs, finished, now, tonumber(ARGV[2]), 4 + dead)
end
for zset, lane in pairs(rescheduled) do
  wake_if_earlier(ARGV[4], lane, before[zset], now)
end
return out
