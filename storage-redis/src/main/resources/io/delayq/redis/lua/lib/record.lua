-- Shared helpers, pasted by Scripts.java where a script includes lib/record.lua.
-- A job record is "<meta JSON>\n<payload>": only the small meta is ever decoded; the payload is
-- concatenated back byte for byte. Meta keys (absent = default):
--   s state (S scheduled, L leased, Y succeeded, D dead, C cancelled), a attempts (0), m maxAttempts,
--   l lane (1 push, absent pull), r runAt ms, c createdAt ms, f fingerprint, t lease token (string),
--   to timeout ms, bc broadcast (1), cb callback JSON text, b backoff JSON text, x finishedAt ms,
--   e last error, h history [{n attempt, t at ms, e error, c http status}] oldest first.

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function split_record(rec)
  local i = string.find(rec, '\n', 1, true)
  return cjson.decode(string.sub(rec, 1, i - 1)), string.sub(rec, i + 1)
end

local function join_record(meta, payload)
  return cjson.encode(meta) .. '\n' .. payload
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

-- Drops finished records older than the retention: O(batch), oldest first.
local function trim_finished(jobs, finished, now, retention_ms, batch)
  local old = redis.call('ZRANGEBYSCORE', finished, '-inf', now - retention_ms, 'LIMIT', 0, batch)
  if #old > 0 then
    redis.call('HDEL', jobs, unpack(old))
    redis.call('ZREM', finished, unpack(old))
  end
end

-- Final state: kept in jobs for the retention, indexed in finished, written to the archive outbox when asked.
local function finish(jobs, finished, archive, id, meta, payload, now, to_archive)
  meta.x = now
  meta.t = nil
  local rec = join_record(meta, payload)
  redis.call('HSET', jobs, id, rec)
  redis.call('ZADD', finished, now, id)
  if to_archive then
    redis.call('XADD', archive, '*', 'i', id, 'r', rec)
  end
  return rec
end
