-- Shared helpers, pasted by Scripts.java where a script includes lib/record.lua.
-- A job record is "<head>\n<payload>"; only the head is ever parsed, the payload is concatenated back byte for
-- byte. The head is compact so that a pending job with a ~220-byte payload stays in a 256-byte allocation:
--   <state><P if push lane><attempts base36>|<maxAttempts base36>|<createdAt ms base36>|<runAt ms base36>|<fingerprint>[|<JSON>]
-- e.g. "S|a|mhzkx3b4|mhzl3g2o|Xy3_a9Qk" or "LP2|3|…|…|…|{\"t\":\"…\"}". The optional JSON object holds the rare fields
-- (absent = default): t lease token (string: 22 characters of base64url; a record leased before 128-bit tokens holds
-- the decimal token it was leased with, compared as text like any other), to timeout ms, bc broadcast (1), cb callback
-- JSON text, b backoff JSON text, x finishedAt ms, e last error, h history [{n attempt, t at ms, e error, c http
-- status, h 1 when the entry is a hold (nack.lua), not an attempt}] oldest first, tp / ts the producer's W3C
-- traceparent / tracestate, od the job's own dead-notice target (Callback JSON text) (tp, ts and od are written by Java
-- at enqueue; scripts carry them along untouched), ex the job's own expiry (epoch ms, written by Java at enqueue),
-- dc the dead cause of a D record (DeadCause name; absent in records written before causes existed).
-- States: S scheduled, L leased, Y succeeded, D dead, C cancelled.
-- In a script the record is a table: s, l (1 = push), a, m, c, r, f and the JSON fields.

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local B36 = '0123456789abcdefghijklmnopqrstuvwxyz'
local char, floor = string.char, math.floor

local function b36_any(n)
  if n <= 0 then return '0' end
  local out = ''
  while n > 0 do
    local d = n % 36
    out = string.sub(B36, d + 1, d + 1) .. out
    n = (n - d) / 36
  end
  return out
end

-- Base 36 of a non-negative integer. Every ms timestamp from 1972 to 2059 has eight digits: that case builds one
-- string instead of eight (Lua interns every intermediate string).
local function b36(n)
  n = floor(n)
  if n < 78364164096 or n >= 2821109907456 then
    return b36_any(n)
  end
  local h = n % 36; n = (n - h) / 36
  local g = n % 36; n = (n - g) / 36
  local f = n % 36; n = (n - f) / 36
  local e = n % 36; n = (n - e) / 36
  local d = n % 36; n = (n - d) / 36
  local c = n % 36; n = (n - c) / 36
  local b = n % 36
  local a = (n - b) / 36
  return char(a < 10 and 48 + a or 87 + a, b < 10 and 48 + b or 87 + b, c < 10 and 48 + c or 87 + c,
    d < 10 and 48 + d or 87 + d, e < 10 and 48 + e or 87 + e, f < 10 and 48 + f or 87 + f,
    g < 10 and 48 + g or 87 + g, h < 10 and 48 + h or 87 + h)
end

local POSITIONAL = { s = true, l = true, a = true, m = true, c = true, r = true, f = true }
-- The base36 text of each record's m, c and r as read, so join_record re-encodes only what changed (b36 is the
-- costliest step of a script).
local RAW = {}

local function split_record(rec)
  local i = string.find(rec, '\n', 1, true)
  local head = string.sub(rec, 1, i - 1)
  local s, l, a, m, c, r, f, rest = string.match(head, '^(%u)(P?)([%l%d]*)|(%w*)|(%w*)|(%w*)|([^|]*)|?(.*)$')
  local meta
  if rest ~= nil and rest ~= '' then meta = cjson.decode(rest) else meta = {} end
  meta.s = s
  if l == 'P' then meta.l = 1 end
  if a ~= '' then meta.a = tonumber(a, 36) end
  meta.m = tonumber(m, 36)
  meta.c = tonumber(c, 36)
  meta.r = tonumber(r, 36)
  meta.f = f
  RAW[meta] = { m = m, c = c, r = r, mv = meta.m, cv = meta.c, rv = meta.r }
  return meta, string.sub(rec, i + 1)
end

local function join_record(meta, payload)
  local head = meta.s
  if meta.l == 1 then head = head .. 'P' end
  if meta.a and meta.a > 0 then head = head .. b36(meta.a) end
  local raw = RAW[meta] or {}
  local m, c, r = raw.m, raw.c, raw.r
  if raw.mv ~= meta.m then m = b36(meta.m) end
  if raw.cv ~= meta.c then c = b36(meta.c) end
  if raw.rv ~= meta.r then r = b36(meta.r) end
  head = head .. '|' .. m .. '|' .. c .. '|' .. r .. '|' .. meta.f
  local rest = {}
  local any = false
  for k, v in pairs(meta) do
    if not POSITIONAL[k] then
      rest[k] = v
      any = true
    end
  end
  if any then head = head .. '|' .. cjson.encode(rest) end
  return head .. '\n' .. payload
end

-- The fingerprint of a stored record, without decoding anything else.
local function fingerprint_of(rec)
  return string.match(rec, '^[^|]*|[^|]*|[^|]*|[^|]*|([^|\n]*)')
end

local function add_history(meta, entry, cap)
  local h = meta.h or {}
  h[#h + 1] = entry
  while #h > cap do
    table.remove(h, 1)
  end
  meta.h = h
end

-- The scheduled ZSET of the job's lane, from the two lane keys the script got.
local function lane_key(meta, push_key, pull_key)
  if meta.l == 1 then return push_key end
  return pull_key
end

local function lane_name(meta)
  if meta.l == 1 then return 'PUSH' end
  return 'PULL'
end

local function earliest(zset)
  local first = redis.call('ZRANGE', zset, 0, 0, 'WITHSCORES')
  if first[2] then return tonumber(first[2]) end
  return nil
end

-- Publishes "topic\nlane\ndueAt" on dq:wake when dueAt is earlier than what the lane had before.
local function wake_if_earlier(topic, lane, before, due_at)
  if before == nil or due_at < before then
    redis.call('PUBLISH', 'dq:wake', topic .. '\n' .. lane .. '\n' .. string.format('%d', due_at))
  end
end

-- Runs cmd key member... over a list in chunks (Lua's unpack has a limit of a few thousand values). Also for lists of
-- pairs (HSET field value..., ZADD score member...): a chunk of 1,000 values never splits a pair. reserve and ack write
-- a batch with one command per key this way instead of one per job (W3: Redis calls per job 9.0 -> 2.1, Redis CPU per
-- job 6-16 % lower; docs/performance.md, "Where a push drain's CPU goes").
local function call_chunked(cmd, key, list)
  for i = 1, #list, 1000 do
    redis.call(cmd, key, unpack(list, i, math.min(i + 999, #list)))
  end
end

-- The records of many ids, in their order (false where there is none): one HMGET per 1,000 ids.
local function read_all(jobs, ids)
  local out = {}
  for i = 1, #ids, 1000 do
    local chunk = redis.call('HMGET', jobs, unpack(ids, i, math.min(i + 999, #ids)))
    for k = 1, #chunk do
      out[i + k - 1] = chunk[k]
    end
  end
  return out
end

-- Drops finished records older than the retention: O(batch), oldest first.
local function trim_finished(jobs, finished, now, retention_ms, batch)
  local old = redis.call('ZRANGEBYSCORE', finished, '-inf', now - retention_ms, 'LIMIT', 0, math.min(batch, 2000))
  if #old > 0 then
    call_chunked('HDEL', jobs, old)
    call_chunked('ZREM', finished, old)
  end
end

-- The record of a job that reaches its final state now (meta.s already set): finishedAt, no lease token.
local function finished_record(meta, payload, now)
  meta.x = now
  meta.t = nil
  return join_record(meta, payload)
end

-- Stores a final record: kept in jobs for the retention, indexed in finished, written to the archive outbox when asked.
local function store_finished(jobs, finished, archive, id, rec, now, to_archive)
  redis.call('HSET', jobs, id, rec)
  redis.call('ZADD', finished, now, id)
  if to_archive then
    redis.call('XADD', archive, '*', 'i', id, 'r', rec)
  end
end

-- Final state: kept in jobs for the retention, indexed in finished, written to the archive outbox when asked.
local function finish(jobs, finished, archive, id, meta, payload, now, to_archive)
  local rec = finished_record(meta, payload, now)
  store_finished(jobs, finished, archive, id, rec, now, to_archive)
  return rec
end

-- Runs fn(rec) for every record of a batch before the script changes anything, and sorts the results into those it
-- could handle ({id, results…}) and those it could not ({id, rec, error}). Redis keeps the writes a script made before
-- an error, so a record that fails half-way through a batch would leave the ids already taken out of an index in
-- their old state for good; parsing first means one damaged record changes nothing for the others.
local function parse_all(jobs, ids, fn)
  local ok_list, bad_list = {}, {}
  local recs = read_all(jobs, ids)
  for i, id in ipairs(ids) do
    local rec = recs[i]
    if rec then
      local result = { pcall(fn, rec, i) }
      if result[1] then
        result[1] = id
        ok_list[#ok_list + 1] = result
      else
        bad_list[#bad_list + 1] = { id, rec, tostring(result[2]) }
      end
    end
  end
  return ok_list, bad_list
end

-- Moves records the scripts cannot parse out of the job hash into the partition's quarantine stream, raw, with the
-- reason and the script that met them (origin): kept for an operator, out of every index. Returns id, reason pairs
-- for the caller to log.
local function quarantine_records(jobs, quarantine, bad_list, origin, out)
  for _, bad in ipairs(bad_list) do
    redis.call('XADD', quarantine, '*', 'i', bad[1], 'r', bad[2], 'e', bad[3], 'o', origin)
    redis.call('HDEL', jobs, bad[1])
    out[#out + 1] = bad[1]
    out[#out + 1] = bad[3]
  end
end

-- The job's expiry, epoch ms, or nil: its own (ex), else its run time + the topic's expiresAfter when that is > 0.
local function expiry_of(meta, expires_after)
  if meta.ex then return tonumber(meta.ex) end
  if expires_after and expires_after > 0 then return meta.r + expires_after end
  return nil
end

-- Makes a due job dead with cause EXPIRED (no attempt is made or used); runs under pcall, before any write.
local function expired_record(meta, payload, expiry, now)
  meta.s = 'D'
  meta.dc = 'EXPIRED'
  meta.e = 'expired: not delivered by its expiry (' .. string.format('%d', expiry) .. ' ms since the epoch)'
  return finished_record(meta, payload, now)
end
