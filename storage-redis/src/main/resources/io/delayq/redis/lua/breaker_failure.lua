-- breaker_failure: a failed attempt to a callback origin (a connection failure, a timeout or a 5xx). Closed: counted,
-- and the circuit opens when the threshold is reached in a row (the first probe due one interval later). Open (a
-- probe failed): the wait between probes doubles, capped, and the next probe is due that long after now, so a dead
-- receiver is asked less and less often; openedAt stays that of the opening.
-- One script so that instances failing at once each count once and exactly one of them opens the circuit.
-- An origin without a record gets one only while fewer than ARGV[5] origins have one (issue 26, finding 5): beyond,
-- it is not tracked, so failing callbacks to ever new ports or subdomains cannot grow the records without bound.
-- KEYS[1] the circuits HASH, KEYS[2..4] its indexes (lib/breaker.lua)
-- ARGV[1] origin, ARGV[2] failure threshold, ARGV[3] first probe interval ms, ARGV[4] probe interval cap ms,
-- ARGV[5] origins with a record at most
-- Returns the circuit's record after the failure (format in lib/breaker.lua), or false when the origin is not tracked
--#include lib/record.lua
--#include lib/breaker.lua

local key, origin = KEYS[1], ARGV[1]
local threshold, first, cap = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local c, found = read_circuit(key, origin)
if not found and redis.call('HLEN', key) >= tonumber(ARGV[5]) then return false end
local now = now_ms()
c.f = c.f + 1
if c.s == 'O' then
  -- at least the policy's first interval: the policy may have changed since the circuit opened
  c.i = math.min(math.max(c.i * 2, first), cap)
  c.p = now + c.i
elseif c.f >= threshold then
  c.s = 'O'
  c.o = now
  c.i = first
  c.p = now + first
end
return write_circuit(key, origin, c)
