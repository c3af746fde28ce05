-- quarantine: moves outbox entries that cannot be decoded from the partition's archive stream to its quarantine
-- stream, raw, with the reason, so that they stop coming back in every read of the outbox (an operator repairs them
-- and XADDs them back, see storage-redis/README.md).
-- KEYS[1] archive STREAM, KEYS[2] quarantine STREAM
-- ARGV[1] entry id, ARGV[2] reason, ARGV[3] entry id, ARGV[4] reason, ...
-- Returns the number of entries moved (an entry already gone is skipped).
--#include lib/record.lua

local archive, quarantine = KEYS[1], KEYS[2]
local moved = 0
for i = 1, #ARGV, 2 do
  local entry = redis.call('XRANGE', archive, ARGV[i], ARGV[i])[1]
  if entry then
    local fields = {}
    for f = 1, #entry[2], 2 do
      fields[entry[2][f]] = entry[2][f + 1]
    end
    redis.call('XADD', quarantine, '*', 'i', fields.i or '', 'r', fields.r or '', 'e', ARGV[i + 1], 'o', 'outbox')
    redis.call('XDEL', archive, ARGV[i])
    moved = moved + 1
  end
end
return moved
