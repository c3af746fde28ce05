-- schedule_delete: deletes a recurring schedule and its due entry (RedisScheduleStore; twin of schedule_delete.sql).
-- KEYS[1] schedules HASH, KEYS[2] schedules:due ZSET (see schedule_put.lua)
-- ARGV[1] name
-- Returns {1 when it existed, else 0; how many schedules the topic has left}, read in the same step as the delete, so
-- that the caller takes a topic out of dq:schedule-topics only when its last schedule went. (That SET is not touched
-- here: it lives in a cluster slot of its own, which a script over this topic's keys cannot reach on Redis Cluster.)
-- Jobs it enqueued stay.
redis.call('ZREM', KEYS[2], ARGV[1])
local existed = redis.call('HDEL', KEYS[1], ARGV[1])
return { existed, redis.call('HLEN', KEYS[1]) }
