-- topics_add: adds topics to a SET of topic names and to its index by name (TopicNameIndex), in one step, so that the
-- index never lacks a member of the SET nor holds one the SET lost: the topic registry's registration and repair
-- (TopicRegistry), a forgotten topic put back (TopicForgetting), a topic's first schedule (RedisScheduleStore).
-- KEYS[1] the SET (dq:topics, dq:schedule-topics), KEYS[2] its index: a ZSET of the same names, every score 0 (read
-- with ZRANGE … BYLEX), KEYS[3] optional: a HASH of tombstones (dq:topics-forgotten) whose fields of these topics
-- go, since the topics are registered anew. All in one hash tag (the SET's name): one cluster slot.
-- ARGV[1], ARGV[2], …: the topics (at most a few hundred: the registry's chunk).
-- Returns how many of them were new to the SET.
local added = 0
for i = 1, #ARGV do
  added = added + redis.call('SADD', KEYS[1], ARGV[i])
  redis.call('ZADD', KEYS[2], 0, ARGV[i])
end
if KEYS[3] then
  for i = 1, #ARGV do
    redis.call('HDEL', KEYS[3], ARGV[i])
  end
end
return added
