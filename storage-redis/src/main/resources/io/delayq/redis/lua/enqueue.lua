-- enqueue: schedules one or more jobs of one topic partition, idempotently per id.
-- KEYS[1] jobs HASH, KEYS[2] scheduled:push ZSET, KEYS[3] scheduled:pull ZSET
-- ARGV[1] topic (for the wake message), then 5 arguments per job:
--   id,
--   head start: '<S or SP>|<maxAttempts base36>|' (SP = push lane),
--   when: 'd<delay ms>' or 'a<runAt epoch ms>',
--   head end: '|<fingerprint>' or '|<fingerprint>|<rare fields JSON>',
--   payload
-- The record written is head start .. createdAt .. '|' .. runAt .. head end .. '\n' .. payload (see lib/record.lua).
-- Returns {now, then per job either 1, runAt (created now) or 0, record (the id exists with the same fingerprint:
-- an idempotent repeat) or -2, record (the id exists with another fingerprint: a conflict)}.
-- Publishes on dq:wake once per lane whose earliest runAt moved earlier.
-- A batch costs one HMGET, one HSET and one ZADD per lane (per 500 jobs), not two commands per job: variadic
-- commands spend the command overhead once, which is most of Redis's time per job in a large batch. A lone job
-- (the common case of a single enqueue) takes one HSETNX instead of HMGET + HSET.
--#include lib/record.lua

local jobs, push, pull = KEYS[1], KEYS[2], KEYS[3]
local now = now_ms()
local created_at = b36(now) .. '|'
local n = (#ARGV - 1) / 5
local ids = {}
for k = 1, n do
  ids[k] = ARGV[k * 5 - 3]
end
local stored = {} -- what the ids hold already (a lone job learns it from HSETNX below)
if n > 1 then
  for i = 1, n, 500 do
    local part = redis.call('HMGET', jobs, unpack(ids, i, math.min(i + 499, n)))
    for j = 1, #part do
      stored[i + j - 1] = part[j]
    end
  end
end

local fields = {}               -- id, record, … for HSET
local push_due, pull_due = {}, {} -- runAt, id, … for ZADD
local written = {}              -- id -> record written by this call (an id twice in one batch)
local out = { now }
local sub, byte = string.sub, string.byte
for k = 1, n do
  local base = k * 5 - 3
  local id, head_start, when, head_end = ids[k], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3]
  local existing = stored[k] or written[id]
  local due, rec
  if not existing then
    due = tonumber(sub(when, 2))
    if byte(when, 1) == 100 then due = now + due end -- 'd': a delay from now
    rec = head_start .. created_at .. b36(due) .. head_end .. '\n' .. ARGV[base + 4]
    if n == 1 and redis.call('HSETNX', jobs, id, rec) == 0 then
      existing = redis.call('HGET', jobs, id)
    end
  end
  if not existing then
    written[id] = rec
    if n > 1 then
      fields[#fields + 1] = id
      fields[#fields + 1] = rec
    end
    local lane = pull_due
    if byte(head_start, 2) == 80 then lane = push_due end -- 'SP': the push lane
    lane[#lane + 1] = due
    lane[#lane + 1] = id
    out[#out + 1] = 1
    out[#out + 1] = due
  else
    if '|' .. fingerprint_of(existing) == string.match(head_end, '^|[^|]*') then
      out[#out + 1] = 0
    else
      out[#out + 1] = -2
    end
    out[#out + 1] = existing
  end
end

-- Adds a lane's new jobs to its scheduled set and wakes the engines when the earliest runAt moved earlier.
local function schedule(key, lane_name, scores)
  if #scores == 0 then return end
  local first = scores[1]
  for i = 3, #scores, 2 do
    if scores[i] < first then first = scores[i] end
  end
  local before = earliest(key)
  call_chunked('ZADD', key, scores)
  wake_if_earlier(ARGV[1], lane_name, before, first)
end

call_chunked('HSET', jobs, fields)
schedule(push, 'PUSH', push_due)
schedule(pull, 'PULL', pull_due)
return out
