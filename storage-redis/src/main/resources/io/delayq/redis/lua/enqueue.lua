-- enqueue: schedules one or more jobs of one topic partition, idempotently per id.
-- KEYS[1] jobs HASH, KEYS[2] scheduled:push ZSET, KEYS[3] scheduled:pull ZSET
-- ARGV[1] topic (for the wake message), ARGV[2] n = number of jobs, then 7 arguments per job:
--   id, fingerprint, delayMs ('' when runAt is given), runAtMs ('' when delayMs is given),
--   lane (1 push, 0 pull), meta fields as JSON text without braces (m, f, l, to, bc, cb, b), payload
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
local before = { [push] = earliest(push), [pull] = earliest(pull) }
local first_due = {}
local out = {}
for j = 0, n - 1 do
  local base = 3 + j * 7
  local id, fp, delay, run_at, lane, fields, payload =
    ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], ARGV[base + 4], ARGV[base + 5], ARGV[base + 6]
  local existing = redis.call('HGET', jobs, id)
  if existing then
    local meta = split_record(existing)
    if meta.f == fp then
      out[#out + 1] = { 0, existing }
    else
      out[#out + 1] = { -2, existing }
    end
  else
    local due
    if delay ~= '' then due = now + tonumber(delay) else due = tonumber(run_at) end
    local rec = '{"s":"S","r":' .. string.format('%d', due) .. ',"c":' .. string.format('%d', now) .. ',' .. fields .. '}\n' .. payload
    redis.call('HSET', jobs, id, rec)
    local zset = pull
    if lane == '1' then zset = push end
    redis.call('ZADD', zset, due, id)
    if first_due[zset] == nil or due < first_due[zset] then first_due[zset] = due end
    out[#out + 1] = { 1, string.format('%d', due), string.format('%d', now) }
  end
end
if first_due[push] then wake_if_earlier(topic, 'PUSH', before[push], first_due[push]) end
if first_due[pull] then wake_if_earlier(topic, 'PULL', before[pull], first_due[pull]) end
return out
