-- topic_forget: the topic registry's part of forgetting a topic (TopicForgetting; twin of topic_delete.sql): the
-- topic leaves dq:topics and its index by name together, loses its idle mark, and gets a tombstone that keeps every
-- instance's repair pass from writing it back. (Its settings are in dq:settings, another slot: the caller deletes
-- them.) Putting a topic back is topics_add.lua.
-- KEYS[1] dq:topics (SET), KEYS[2] dq:topics-by-name (ZSET, every score 0), KEYS[3] dq:topics-forgotten (HASH topic ->
-- when, ms), KEYS[4] dq:topics-idle (HASH topic -> since when, ms); all in the hash tag {dq:topics}: one cluster slot.
-- ARGV[1] the topic, ARGV[2] now (ms, the store's clock as the caller read it).
-- Returns 1 when it was in dq:topics, else 0.
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
return redis.call('SREM', KEYS[1], ARGV[1])
