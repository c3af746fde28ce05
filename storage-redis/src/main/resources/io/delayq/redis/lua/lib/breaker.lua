-- Helpers of the breaker_* scripts, pasted by Scripts.java where a script includes lib/breaker.lua (after
-- lib/record.lua, whose b36 it uses). Every callback origin's circuit breaker is one field of one HASH (the scripts'
-- KEYS[1], dq:circuits): origin -> record
--   <state>|<consecutive failures>|<openedAt ms>|<closedAt ms>|<nextProbeAt ms>|<probe interval ms>|<held jobs>
-- numbers in base 36 (like the job record's head), state C closed or O open, openedAt / closedAt empty while the
-- circuit never opened / never closed after opening, nextProbeAt and the interval 0 while closed; e.g.
-- "O|3|mhzkx3b4||mhzkx3go|5k|0" (open since mhzkx3b4 after 3 failures, next probe at mhzkx3go, 200 ms between probes).
-- A few dozen bytes per origin that ever failed, not per job. CircuitRecord.java reads the same text.
-- In a script the circuit is a table: s, f, o, c, p, i, h.

local function read_circuit(key, origin)
  local rec = redis.call('HGET', key, origin)
  if rec then
    local s, f, o, c, p, i, h = string.match(rec, '^([CO])|(%w+)|(%w*)|(%w*)|(%w+)|(%w+)|(%w+)')
    if s then
      return { s = s, f = tonumber(f, 36), o = o ~= '' and tonumber(o, 36) or nil,
               c = c ~= '' and tonumber(c, 36) or nil, p = tonumber(p, 36), i = tonumber(i, 36),
               h = tonumber(h, 36) }, true
    end
  end
  -- No record, or one this code cannot read (written by hand?): a circuit is soft state, so it starts afresh (and the
  -- next write replaces the damaged text) rather than failing every attempt to the origin. CircuitRecord.java reads
  -- such a record as closed too.
  return { s = 'C', f = 0, p = 0, i = 0, h = 0 }, rec ~= false
end

local function opt_b36(n)
  if n == nil then return '' end
  return b36(n)
end

-- Writes the circuit and returns its record, which the scripts answer with so that the caller sees the circuit as
-- this call left it (no second read, which another instance could have changed meanwhile).
local function write_circuit(key, origin, c)
  local rec = c.s .. '|' .. b36(c.f) .. '|' .. opt_b36(c.o) .. '|' .. opt_b36(c.c) .. '|' .. b36(c.p) .. '|'
    .. b36(c.i) .. '|' .. b36(c.h)
  redis.call('HSET', key, origin, rec)
  return rec
end
