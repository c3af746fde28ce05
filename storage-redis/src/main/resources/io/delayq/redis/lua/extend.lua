-- extend: moves a lease's deadline to leaseMs from now.
-- KEYS[1] jobs HASH, KEYS[2] leased ZSET
-- ARGV[1] id, ARGV[2] lease token, ARGV[3] lease ms
-- Returns {1, deadline}, {-1} NOT_FOUND, {-3} STALE_LEASE
--#include lib/record.lua

local jobs, leased = KEYS[1], KEYS[2]
local id, token = ARGV[1], ARGV[2]
local rec = redis.call('HGET', jobs, id)
if not rec then return { -1 } end
local meta = split_record(rec)
if meta.s ~= 'L' or meta.t ~= token then return { -3 } end
local deadline = now_ms() + tonumber(ARGV[3])
redis.call('ZADD', leased, deadline, id)
return { 1, string.format('%d', deadline) }
