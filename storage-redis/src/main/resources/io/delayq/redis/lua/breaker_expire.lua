-- breaker_expire: forgets closed circuits whose last change is older than ARGV[1] ms (issue 26, finding 5), oldest
-- first, at most ARGV[2] of them, with their held sets: a held job not tried again for that long is not coming back to
-- this origin. An open circuit is never forgotten: its last change is moved to now, so it is looked at again after
-- another idle period rather than at every call. Atomic, so instances sweeping at once forget each circuit once.
-- KEYS[1] the circuits HASH, KEYS[2..4] its indexes (lib/breaker.lua)
-- ARGV[1] idle ms, ARGV[2] at most, ARGV[3] the prefix of the held sets' keys (RedisKeys.held; same slot), ARGV[4] the
-- prefix of their counts by topic (RedisKeys.heldByTopic, breaker_held.lua; same slot), which go with them
-- Returns how many circuits were forgotten
--#include lib/record.lua
--#include lib/breaker.lua

local key = KEYS[1]
local now = now_ms()
local idle = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[1]), 'LIMIT', 0, tonumber(ARGV[2]))
local forgotten = 0
for _, origin in ipairs(idle) do
  local c, found = read_circuit(key, origin)
  if found and c.s == 'O' then
    redis.call('ZADD', KEYS[3], now, origin)
  else
    forget_circuit(key, origin)
    redis.call('DEL', ARGV[3] .. origin, ARGV[4] .. origin)
    forgotten = forgotten + 1
  end
end
return forgotten
