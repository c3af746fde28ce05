-- ack: marks one attempt successful.
-- KEYS[1] jobs HASH, KEYS[2] leased ZSET, KEYS[3] finished ZSET, KEYS[4] archive STREAM, KEYS[5] stats HASH
-- ARGV[1] id, ARGV[2] lease token, ARGV[3] 1 to write the succeeded job to the archive outbox, else 0,
-- ARGV[4] finished retention ms, ARGV[5] history cap
-- Returns 1 OK, -1 NOT_FOUND, -3 STALE_LEASE (not leased, or another token: nothing changes)
--#include lib/record.lua

local jobs, leased, finished, archive, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, token = ARGV[1], ARGV[2]
local rec = redis.call('HGET', jobs, id)
if not rec then return -1 end
local meta, payload = split_record(rec)
if meta.s ~= 'L' or meta.t ~= token then return -3 end
local now = now_ms()
redis.call('ZREM', leased, id)
meta.s = 'Y'
add_history(meta, { n = meta.a, t = now }, tonumber(ARGV[5]))
finish(jobs, finished, archive, id, meta, payload, now, ARGV[3] == '1')
redis.call('HINCRBY', stats, 'succeeded', 1)
trim_finished(jobs, finished, now, tonumber(ARGV[4]), 4)
return 1
