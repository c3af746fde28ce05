-- breaker_held: changes the set of jobs held for a callback origin (issue 26, finding 7): members join it (a job held
-- again keeps its first time), others leave it (attempted again, or no longer scheduled). The circuit's held count is
-- written as the set's size, so a job counts once however often it is held, and a release counted twice (two
-- instances saw the job) or of a job never held changes nothing: the count cannot drift as a counter of deltas did.
-- An origin without a record gets none for a change that leaves its set empty.
-- Beside the set, the origin's held jobs by topic (CircuitBreakers.heldByTopic, what a tenant is shown: issue "many
-- teams"): a HASH topic -> count, moved by the set's own answers, +1 only when ZADD NX really added a member and -1
-- only when ZREM really removed one, so it follows the set's size exactly; a field is deleted at 0, never negative.
-- Its field '' (no topic is empty) is when the counting started, ms: a set written by an earlier version (before the
-- counts) holds members counted for no topic, so a member leaves a count only when it was held at or after that time
-- (its score, the first time held). The HASH goes when the set empties, and with it (breaker_expire.lua).
-- KEYS[1] the circuits HASH, KEYS[2..4] its indexes (lib/breaker.lua), KEYS[5] the origin's held ZSET (member -> first held
-- ms; same slot, see RedisKeys.held), KEYS[6] its counts by topic (RedisKeys.heldByTopic; same slot)
-- ARGV[1] origin, ARGV[2] n, ARGV[3 .. 2+n] members held, ARGV[3+n ..] members released (JobRefs.member)
-- Returns the held jobs after the change
--#include lib/record.lua
--#include lib/breaker.lua

local key, heldKey, countKey, origin = KEYS[1], KEYS[5], KEYS[6], ARGV[1]
local n = tonumber(ARGV[2])
local now = now_ms()

-- The topic of a member "<length of topic>:<topic><id>" (JobRefs.member).
local function topic_of(member)
  local colon = string.find(member, ':', 1, true)
  local length = colon and tonumber(string.sub(member, 1, colon - 1))
  if not length then return nil end
  return string.sub(member, colon + 1, colon + length)
end

-- Counts beside no set are left over (the set deleted by an earlier version's breaker_expire during a rolling upgrade,
-- or by hand): they count nothing held now.
if redis.call('EXISTS', heldKey) == 0 then
  redis.call('DEL', countKey)
end
local since = tonumber(redis.call('HGET', countKey, ''))
for i = 3, 2 + n do
  if redis.call('ZADD', heldKey, 'NX', now, ARGV[i]) == 1 then
    local topic = topic_of(ARGV[i])
    if topic then
      if not since then
        since = now
        redis.call('HSET', countKey, '', now)
      end
      redis.call('HINCRBY', countKey, topic, 1)
    end
  end
end
for i = 3 + n, #ARGV do
  local heldAt = redis.call('ZSCORE', heldKey, ARGV[i])
  if heldAt and redis.call('ZREM', heldKey, ARGV[i]) == 1 and since and tonumber(heldAt) >= since then
    local topic = topic_of(ARGV[i])
    if topic then
      local count = tonumber(redis.call('HGET', countKey, topic))
      if count and count > 1 then
        redis.call('HINCRBY', countKey, topic, -1)
      elseif count then
        redis.call('HDEL', countKey, topic)
      end
    end
  end
end
local held = redis.call('ZCARD', heldKey)
if held == 0 then
  redis.call('DEL', countKey)
end
local c, found = read_circuit(key, origin)
if not found and held == 0 then return 0 end
if (not found) or c.h ~= held then
  c.h = held
  write_circuit(key, origin, c)
end
return held
