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
--#include lib/record.lua

local jobs, push, pull = KEYS[1], KEYS[2], KEYS[3]
local now = now_ms()
local created_at = b36(now) .. '|'
local before = {}
local first_due = {}
local out = { now }
for base = 2, #ARGV, 5 do
  local id, head_start, when, head_end, payload = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], ARGV[base + 4]
  local due = tonumber(string.sub(when, 2))
  if string.byte(when, 1) == 100 then due = now + due end -- 'd': a delay from now
  if redis.call('HSETNX', jobs, id, head_start .. created_at .. b36(due) .. head_end .. '\n' .. payload) == 1 then
    local zset = pull
    if string.byte(head_start, 2) == 80 then zset = push end -- 'SP': the push lane
    if first_due[zset] == nil then
      before[zset] = earliest(zset) or false
      first_due[zset] = due
    elseif due < first_due[zset] then
      first_due[zset] = due
    end
    redis.call('ZADD', zset, due, id)
    out[#out + 1] = 1
    out[#out + 1] = due
  else
    local existing = redis.call('HGET', jobs, id)
    if '|' .. fingerprint_of(existing) == string.match(head_end, '^|[^|]*') then
      out[#out + 1] = 0
    else
      out[#out + 1] = -2
    end
    out[#out + 1] = existing
  end
end
if first_due[push] then wake_if_earlier(ARGV[1], 'PUSH', before[push] or nil, first_due[push]) end
if first_due[pull] then wake_if_earlier(ARGV[1], 'PULL', before[pull] or nil, first_due[pull]) end
return out
