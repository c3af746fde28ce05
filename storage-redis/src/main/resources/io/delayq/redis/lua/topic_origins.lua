-- topic_origins: records that a topic's jobs were sent (or held) for these callback origins at ARGV[1]
-- (CircuitBreakers.recordOrigins; topic_origins.sql on PostgreSQL). An origin's last use is raised to ARGV[1], never
-- lowered: instances write in any order, each with its own estimate of the store's clock. Then the origins last used
-- more than ARGV[3] ms before ARGV[1] leave, and of the rest only the ARGV[2] most recently used stay (among equal
-- uses, the greatest origins: a ZSET ranks them by member). The key expires ARGV[3] ms after its newest use, so a topic
-- whose jobs go nowhere any more is forgotten whole.
-- KEYS[1] the topic's origins ZSET (RedisKeys.topicOrigins)
-- ARGV[1] now (epoch ms), ARGV[2] at most this many origins, ARGV[3] retention ms, ARGV[4..] the origins used
-- Returns how many origins the topic has after the write

local key = KEYS[1]
local now, max, retention = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
for i = 4, #ARGV do
  local before = tonumber(redis.call('ZSCORE', key, ARGV[i]) or '')
  if not before or now > before then
    redis.call('ZADD', key, now, ARGV[i])
  end
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('(%d', now - retention))
local kept = redis.call('ZCARD', key)
if kept > max then
  redis.call('ZREMRANGEBYRANK', key, 0, kept - max - 1)
  kept = max
end
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if newest[2] then
  redis.call('PEXPIREAT', key, string.format('%d', tonumber(newest[2]) + retention))
end
return kept
