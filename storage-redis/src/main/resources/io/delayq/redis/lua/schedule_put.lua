-- schedule_put: creates or replaces a recurring schedule (RedisScheduleStore; twin of schedule_put.sql).
-- KEYS[1] schedules HASH (name -> record JSON), KEYS[2] schedules:due ZSET (name -> due epoch ms); both under the hash
-- tag of the topic's partition 0.
-- ARGV[1] name, ARGV[2] definition (JSON text, never read here), ARGV[3] due epoch ms, or '' for none.
-- The record: {d definition, c cursor, u due (absent: none), ca created, ua updated, f [fire JSON text, oldest first]};
-- times are decimal strings, so that no float formatting touches them. The cursor becomes Redis's clock: a PUT
-- replaces the schedule, and its fires start after it. The creation time and the fires are kept.
-- Returns the record as stored (JSON).
--#include lib/record.lua

local schedules, due, name = KEYS[1], KEYS[2], ARGV[1]
local now = string.format('%d', now_ms())
local stored = redis.call('HGET', schedules, name)
local rec
if stored then
  rec = cjson.decode(stored)
else
  rec = { ca = now, f = {} }
end
rec.d = ARGV[2]
rec.c = now
rec.ua = now
if ARGV[3] == '' then
  rec.u = nil
  redis.call('ZREM', due, name)
else
  rec.u = ARGV[3]
  redis.call('ZADD', due, tonumber(ARGV[3]), name)
end
local encoded = cjson.encode(rec)
redis.call('HSET', schedules, name, encoded)
return encoded
