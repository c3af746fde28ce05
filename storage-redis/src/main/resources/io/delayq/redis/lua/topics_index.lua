-- topics_index: brings names of a SET of topics and of its index by name (TopicNameIndex) in step, a chunk at a time:
-- each name in the SET gets its index entry, each name not in it loses its entry. Run at the store's start over every
-- member of the SET (SSCAN) and every entry of the index (ZRANGE … BYLEX): what a SET written before the index existed,
-- or by an instance of an earlier version during a rolling upgrade, holds. The test and the write are one step, so a
-- topic deleted meanwhile (topic_forget.lua, topics_remove.lua) never leaves an entry behind.
-- KEYS[1] the SET, KEYS[2] its index (a ZSET of the same names, every score 0); one hash tag: one cluster slot.
-- ARGV[1], ARGV[2], …: the names of the chunk.
-- Returns {entries added, entries removed}.
local added, removed = 0, 0
for i = 1, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then
    added = added + redis.call('ZADD', KEYS[2], 'NX', 0, ARGV[i])
  else
    removed = removed + redis.call('ZREM', KEYS[2], ARGV[i])
  end
end
return { added, removed }
