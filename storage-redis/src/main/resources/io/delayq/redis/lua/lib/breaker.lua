-- Helpers of the breaker_* scripts, pasted by Scripts.java where a script includes lib/breaker.lua (after
-- lib/record.lua, whose b36 it uses). Every callback origin's circuit breaker is one field of one HASH (the scripts'
-- KEYS[1], dq:circuits): origin -> record
--   <state>|<consecutive failures>|<openedAt ms>|<closedAt ms>|<nextProbeAt ms>|<probe interval ms>|<held jobs>
-- numbers in base 36 (like the job record's head), state C closed or O open, openedAt / closedAt empty while the
-- circuit never opened / never closed after opening, nextProbeAt and the interval 0 while closed; e.g.
-- "O|3|mhzkx3b4||mhzkx3go|5k|0" (open since mhzkx3b4 after 3 failures, next probe at mhzkx3go, 200 ms between probes).
-- A few dozen bytes per origin that ever failed, not per job. CircuitRecord.java reads the same text.
-- In a script the circuit is a table: s, f, o, c, p, i, h.
-- Every breaker script has the same first four KEYS, all under the hash tag {dq:circuits} (one cluster slot, that of
-- dq:circuits itself, whose whole name is hashed): KEYS[1] the circuits HASH, KEYS[2] ZSET of their origins (score 0:
-- in origin order, for the paged listing), KEYS[3] ZSET origin -> its last change (ms, for the expiry of idle closed
-- circuits), KEYS[4] ZSET of the notable origins (open, or jobs held; score 0), which each instance's snapshot reads.
-- write_circuit keeps the three indexes in step with the HASH (issue 26, finding 5).

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
  redis.call('ZADD', KEYS[2], 0, origin)
  redis.call('ZADD', KEYS[3], now_ms(), origin)
  if c.s == 'O' or c.h > 0 then
    redis.call('ZADD', KEYS[4], 0, origin)
  else
    redis.call('ZREM', KEYS[4], origin)
  end
  return rec
end

-- Removes a circuit and its indexes entries (its held set is the caller's).
local function forget_circuit(key, origin)
  redis.call('HDEL', key, origin)
  redis.call('ZREM', KEYS[2], origin)
  redis.call('ZREM', KEYS[3], origin)
  redis.call('ZREM', KEYS[4], origin)
end
