-- enqueue: schedules one or more jobs of one topic partition, idempotently per id.
-- KEYS[1] jobs HASH, KEYS[2] scheduled:push ZSET, KEYS[3] scheduled:pull ZSET
-- ARGV[1] topic (for the wake message), ARGV[2] n = number of jobs, then 8 arguments per job:
--   id, fingerprint, delayMs ('' when runAt is given), runAtMs ('' when delayMs is given),
--   head prefix ('S' pull lane, 'SP' push lane), maxAttempts base36, rare fields as JSON ('' when none), payload
-- Returns one entry per job, in order:
--   {1, runAt, createdAt}   created now
--   {0, record}             the id exists with the same fingerprint (idempotent repeat)
--   {-2, record}            the id exists with another fingerprint (conflict)
-- Publishes on dq:wake once per lane whose earliest runAt moved earlier.
--#include lib/record.lua

local jobs, push, pull = KEYS[1], KEYS[2], KEYS[3]
local topic = ARGV[1]
local n = tonumber(ARGV[2])
local now = now_ms()
local created_at = b36(now)
local now_text = string.format('%d', now)
local before = {}
local first_due = {}
local out = {}
for j = 0, n - 1 do
  local base = 3 + j * 8
  local id, fp, delay, run_at, prefix, max_attempts, extra, payload =
    ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], ARGV[base + 4], ARGV[base + 5], ARGV[base + 6], ARGV[base + 7]
  local due
  if delay ~= '' then due = now + tonumber(delay) else due = tonumber(run_at) end
  local head = prefix .. '|' .. max_attempts .. '|' .. created_at .. '|' .. b36(due) .. '|' .. fp
  if extra ~= '' then head = head .. '|' .. extra end
  if redis.call('HSETNX', jobs, id, head .. '\n' .. payload) == 1 then
    local zset = pull
    if prefix == 'SP' then zset = push end
    if first_due[zset] == nil then
      before[zset] = earliest(zset) or false
      first_due[zset] = due
    elseif due < first_due[zset] then
      first_due[zset] = due
    end
    redis.call('ZADD', zset, due, id)
    out[#out + 1] = { 1, string.format('%d', due), now_text }
  else
    local existing = redis.call('HGET', jobs, id)
    if fingerprint_of(existing) == fp then
      out[#out + 1] = { 0, existing }
    else
      out[#out + 1] = { -2, existing }
    end
  end
end
if first_due[push] then wake_if_earlier(topic, 'PUSH', before[push] or nil, first_due[push]) end
if first_due[pull] then wake_if_earlier(topic, 'PULL', before[pull] or nil, first_due[pull]) end
return out
