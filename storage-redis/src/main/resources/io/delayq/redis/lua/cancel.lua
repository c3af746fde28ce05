-- cancel: cancels a scheduled or leased job (a leased job's token goes stale).
-- KEYS[1] jobs HASH, KEYS[2] scheduled:push ZSET, KEYS[3] scheduled:pull ZSET, KEYS[4] leased ZSET,
-- KEYS[5] finished ZSET
-- ARGV[1] id, ARGV[2] finished retention ms
-- Returns {1, record} cancelled, {-1} NOT_FOUND, {-4, record} NOT_IN_STATE (already finished)
--#include lib/record.lua

local jobs, push, pull, leased, finished = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id = ARGV[1]
local rec = redis.call('HGET', jobs, id)
if not rec then return { -1 } end
local meta, payload = split_record(rec)
if meta.s ~= 'S' and meta.s ~= 'L' then return { -4, rec } end
local now = now_ms()
redis.call('ZREM', lane_key(meta, push, pull), id)
redis.call('ZREM', leased, id)
meta.s = 'C'
rec = finish(jobs, finished, '', id, meta, payload, now, false)
trim_finished(jobs, finished, now, tonumber(ARGV[2]), 4)
return { 1, rec }
