-- breaker_held: adds to the number of jobs held for a callback origin (a negative delta: jobs released), never below 0,
-- so that a release of jobs held before the count was started afresh (a damaged record, see lib/breaker.lua) cannot
-- leave a negative backlog.
-- An origin without a record gets none for a change that leaves 0.
-- KEYS[1] circuits HASH
-- ARGV[1] origin, ARGV[2] delta
-- Returns the held jobs after the change
--#include lib/record.lua
--#include lib/breaker.lua

local key, origin = KEYS[1], ARGV[1]
local c, found = read_circuit(key, origin)
local held = math.max(0, c.h + tonumber(ARGV[2]))
if not found and held == 0 then return 0 end
c.h = held
write_circuit(key, origin, c)
return held
