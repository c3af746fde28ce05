-- ack: marks attempts of one partition successful.
-- KEYS[1] jobs HASH, KEYS[2] leased ZSET, KEYS[3] finished ZSET, KEYS[4] archive STREAM, KEYS[5] stats HASH
-- ARGV[1] 1 to write succeeded jobs to the archive outbox, else 0, ARGV[2] history cap,
-- then pairs: ARGV[3] id, ARGV[4] lease token, ARGV[5] id, ARGV[6] lease token, ...
-- Returns one code per pair: 1 OK, -1 NOT_FOUND, -3 STALE_LEASE (not leased, or another token: nothing changes)
--#include lib/record.lua

local jobs, leased, finished, archive, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local to_archive, cap = ARGV[1] == '1', tonumber(ARGV[2])
local now = now_ms()
local out = {}
local succeeded = 0
for i = 3, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  local rec = redis.call('HGET', jobs, id)
  if not rec then
    out[#out + 1] = -1
  else
    local meta, payload = split_record(rec)
    if meta.s ~= 'L' or meta.t ~= token then
      out[#out + 1] = -3
    else
      redis.call('ZREM', leased, id)
      meta.s = 'Y'
      add_history(meta, { n = meta.a, t = now }, cap)
      finish(jobs, finished, archive, id, meta, payload, now, to_archive)
      succeeded = succeeded + 1
      out[#out + 1] = 1
    end
  end
end
if succeeded > 0 then
  redis.call('HINCRBY', stats, 'succeeded', succeeded)
end
return out
