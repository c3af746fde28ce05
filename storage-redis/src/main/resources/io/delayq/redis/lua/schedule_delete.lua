-- schedule_delete: deletes a recurring schedule and its due entry (RedisScheduleStore; twin of schedule_delete.sql).
-- KEYS[1] schedules HASH, KEYS[2] schedules:due ZSET (see schedule_put.lua)
-- ARGV[1] name
-- Returns 1 when it existed, else 0. Jobs it enqueued stay.
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])
