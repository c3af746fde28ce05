-- breaker_held: changes the set of jobs held for a callback origin (issue 26, finding 7): members join it (a job held
-- again keeps its first time), others leave it (attempted again, or no longer scheduled). The circuit's held count is
-- written as the set's size, so a job counts once however often it is held, and a release counted twice (two
-- instances saw the job) or of a job never held changes nothing: the count cannot drift as a counter of deltas did.
-- An origin without a record gets none for a change that leaves its set empty.
-- KEYS[1] the circuits HASH, KEYS[2..4] its indexes (lib/breaker.lua), KEYS[5] the origin's held ZSET (member -> first held
-- ms; same slot, see RedisKeys.held)
-- ARGV[1] origin, ARGV[2] n, ARGV[3 .. 2+n] members held, ARGV[3+n ..] members released (JobRefs.member)
-- Returns the held jobs after the change
--#include lib/record.lua
--#include lib/breaker.lua

local key, heldKey, origin = KEYS[1], KEYS[5], ARGV[1]
local n = tonumber(ARGV[2])
local now = now_ms()
for i = 3, 2 + n do
  redis.call('ZADD', heldKey, 'NX', now, ARGV[i])
end
for i = 3 + n, #ARGV do
  redis.call('ZREM', heldKey, ARGV[i])
end
local held = redis.call('ZCARD', heldKey)
local c, found = read_circuit(key, origin)
if not found and held == 0 then return 0 end
if (not found) or c.h ~= held then
  c.h = held
  write_circuit(key, origin, c)
end
return held
