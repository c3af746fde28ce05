-- ack: marks attempts of one partition successful.
-- KEYS[1] jobs HASH, KEYS[2] leased ZSET, KEYS[3] finished ZSET, KEYS[4] archive STREAM, KEYS[5] stats HASH
-- ARGV[1] 1 to write succeeded jobs to the archive outbox, else 0, ARGV[2] history cap,
-- then pairs: ARGV[3] id, ARGV[4] lease token, ARGV[5] id, ARGV[6] lease token, ...
-- Returns one code per pair: 1 OK, -1 NOT_FOUND, -3 STALE_LEASE (not leased, or another token: nothing changes)
-- The records are read together and written together at the end (see call_chunked); an id acknowledged twice in one
-- call is answered as the second ack of it would be after the first: -3, it is no longer leased.
--#include lib/record.lua

local jobs, leased, finished, archive, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local to_archive, cap = ARGV[1] == '1', tonumber(ARGV[2])
local now = now_ms()
local ids = {}
for i = 3, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
end
local recs = read_all(jobs, ids)
local out = {}
local acked, records, finished_now, done = {}, {}, {}, {}
for k, id in ipairs(ids) do
  local token, rec = ARGV[2 * k + 2], recs[k]
  if done[id] then
    out[k] = -3
  elseif not rec then
    out[k] = -1
  else
    local meta, payload = split_record(rec)
    if meta.s ~= 'L' or meta.t ~= token then
      out[k] = -3
    else
      meta.s = 'Y'
      add_history(meta, { n = meta.a, t = now }, cap)
      rec = finished_record(meta, payload, now)
      acked[#acked + 1] = id
      records[#records + 1] = id
      records[#records + 1] = rec
      finished_now[#finished_now + 1] = now
      finished_now[#finished_now + 1] = id
      if to_archive then
        redis.call('XADD', archive, '*', 'i', id, 'r', rec)
      end
      done[id] = true
      out[k] = 1
    end
  end
end
if #acked > 0 then
  call_chunked('ZREM', leased, acked)
  call_chunked('HSET', jobs, records)
  call_chunked('ZADD', finished, finished_now)
  redis.call('HINCRBY', stats, 'succeeded', #acked)
end
return out
