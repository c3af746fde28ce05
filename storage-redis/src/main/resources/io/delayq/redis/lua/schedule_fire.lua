-- schedule_fire: one fire of a recurring schedule, compared-and-set on its cursor, with the job it enqueues, in one
-- step (RedisScheduleStore; twin of schedule_fire.sql). Also a run-now (mode 'run': no cursor compared or moved).
-- KEYS[1] schedules HASH, KEYS[2] schedules:due ZSET (see schedule_put.lua), KEYS[3] jobs HASH, KEYS[4]
-- scheduled:push ZSET, KEYS[5] scheduled:pull ZSET of the partition the job goes to: the Java side picks the job's id
-- so that it is the topic's partition 0, whose hash tag the schedule keys share (one cluster slot).
-- ARGV[1] topic (for the wake message), ARGV[2] name, ARGV[3] mode 'cas' or 'run', ARGV[4] the cursor expected,
-- ARGV[5] the new cursor, ARGV[6] the new due epoch ms or '' (none), ARGV[7] the fire to record (JSON text) or '',
-- then, when a job is enqueued, ARGV[8..12] as one job of enqueue.lua: id, head start, when, head end, payload.
-- Returns {1, job id or ''} applied, {-1} no such schedule, {-2} the cursor is not the one expected.
--#include lib/record.lua

local schedules, due, jobs, push, pull = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local name, mode = ARGV[2], ARGV[3]
local stored = redis.call('HGET', schedules, name)
if not stored then return { -1 } end
local rec = cjson.decode(stored)
if mode == 'cas' and rec.c ~= ARGV[4] then return { -2 } end

local job_id = ''
if #ARGV >= 12 then
  job_id = ARGV[8]
  local head_start, when, head_end = ARGV[9], ARGV[10], ARGV[11]
  local now = now_ms()
  local run_at = tonumber(string.sub(when, 2))
  if string.byte(when, 1) == 100 then run_at = now + run_at end -- 'd': a delay from now
  local record = head_start .. b36(now) .. '|' .. b36(run_at) .. head_end .. '\n' .. ARGV[12]
  -- The cursor makes each fire's id new; an id already there (never expected) is left as it is, not duplicated.
  if redis.call('HSETNX', jobs, job_id, record) == 1 then
    local lane, lane_label = pull, 'PULL'
    if string.byte(head_start, 2) == 80 then lane, lane_label = push, 'PUSH' end -- 'SP': the push lane
    local before = earliest(lane)
    redis.call('ZADD', lane, run_at, job_id)
    wake_if_earlier(ARGV[1], lane_label, before, run_at)
  end
end

if mode == 'cas' then
  rec.c = ARGV[5]
  if ARGV[6] == '' then
    rec.u = nil
    redis.call('ZREM', due, name)
  else
    rec.u = ARGV[6]
    redis.call('ZADD', due, tonumber(ARGV[6]), name)
  end
end
if ARGV[7] ~= '' then
  local fires = rec.f
  if type(fires) ~= 'table' then fires = {} end
  fires[#fires + 1] = ARGV[7]
  while #fires > 20 do table.remove(fires, 1) end
  rec.f = fires
end
redis.call('HSET', schedules, name, cjson.encode(rec))
return { 1, job_id }
