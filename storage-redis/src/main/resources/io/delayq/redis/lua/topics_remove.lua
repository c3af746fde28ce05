-- topics_remove: takes a topic out of a SET of topic names and out of its index by name (TopicNameIndex), in one
-- step: a topic whose last schedule was deleted leaving dq:schedule-topics (RedisScheduleStore). The topic registry's
-- forgetting is topic_forget.lua.
-- KEYS[1] the SET, KEYS[2] its index (a ZSET of the same names, every score 0); one hash tag: one cluster slot.
-- ARGV[1] the topic.
-- Returns 1 when it was in the SET, else 0.
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('SREM', KEYS[1], ARGV[1])
