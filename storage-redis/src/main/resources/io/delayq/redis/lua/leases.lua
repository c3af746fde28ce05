-- leases: the leases in flight of one partition, earliest deadline first, for an operator's view; writes nothing.
-- A script rather than ZRANGE + HMGET from Java so that only the head's first field of each record crosses the
-- network, not its payload (up to 64 KiB a job).
-- KEYS[1] jobs HASH, KEYS[2] leased ZSET
-- ARGV[1] how many leases at most
-- Returns {id, deadline ms, first field of the record head (state, lane, attempts base36), ...}; an entry whose
-- record is missing or not leased is left out.
-- It reads the head's first field itself rather than through split_record, so that one damaged record (whose JSON
-- cjson cannot decode) does not hide every other lease from the view.
--#include lib/record.lua

local jobs, leased = KEYS[1], KEYS[2]
local entries = redis.call('ZRANGE', leased, 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #entries, 2 do
    local rec = redis.call('HGET', jobs, entries[i])
    if rec then
        local first = string.match(rec, '^[^|\n]*')
        if string.sub(first, 1, 1) == 'L' then
            out[#out + 1] = entries[i]
            out[#out + 1] = entries[i + 1]
            out[#out + 1] = first
        end
    end
end
return out
