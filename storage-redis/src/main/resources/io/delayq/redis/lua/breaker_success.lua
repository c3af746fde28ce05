-- breaker_success: a successful attempt to a callback origin: the failures are reset, and an open circuit closes
-- (closedAt = now, no more probes). The held jobs are left as they are: the engine releases them at its own rate.
-- An origin without a record keeps none, so that a success costs no memory.
-- KEYS[1] the circuits HASH, KEYS[2..4] its indexes (lib/breaker.lua)
-- ARGV[1] origin
-- Returns the circuit's record after the success (format in lib/breaker.lua), '' when the origin has no record
--#include lib/record.lua
--#include lib/breaker.lua

local key, origin = KEYS[1], ARGV[1]
local c, found = read_circuit(key, origin)
if not found then return '' end
c.f = 0
if c.s == 'O' then
  c.s = 'C'
  c.c = now_ms()
  c.p = 0
  c.i = 0
end
return write_circuit(key, origin, c)
