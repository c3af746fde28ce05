-- breaker_probe: claims an open circuit's next probe. Exactly one caller wins once nextProbeAt has passed, because
-- the winner moves nextProbeAt one interval on from now in the same script: every other caller, on any instance, then
-- finds it not due, and a probe that hangs does not let another one through before the interval is over.
-- KEYS[1] the circuits HASH, KEYS[2..4] its indexes (lib/breaker.lua)
-- ARGV[1] origin
-- Returns 1 claimed, 0 not claimed (closed, no record, or not due yet)
--#include lib/record.lua
--#include lib/breaker.lua

local key, origin = KEYS[1], ARGV[1]
local c = read_circuit(key, origin)
if c.s ~= 'O' then return 0 end
local now = now_ms()
if now < c.p then return 0 end
c.p = now + c.i
write_circuit(key, origin, c)
return 1
