-- trim: drops finished records past the retention, oldest first, O(batch). reserve, cancel, nack and expire trim
-- as they go; this script is the store's background pass, so that idle topics and partitions are trimmed too.
-- KEYS[1] jobs HASH, KEYS[2] finished ZSET
-- ARGV[1] finished retention ms, ARGV[2] batch (at most 2000)
-- Returns the number of records dropped.
--#include lib/record.lua

local jobs, finished = KEYS[1], KEYS[2]
local now = now_ms()
local before = redis.call('ZCARD', finished)
trim_finished(jobs, finished, now, tonumber(ARGV[1]), tonumber(ARGV[2]))
return before - redis.call('ZCARD', finished)
