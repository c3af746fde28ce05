-- list_jobs: one partition's share of a page of a topic's jobs (JobStore#listJobs); writes nothing.
-- Walks the partition's sorted sets in (score, id) order, strictly after a position: the two scheduled ZSETs (score:
-- run time) and the leased ZSET (score: lease deadline) for pending jobs, the finished ZSET (score: finish time) for
-- finished ones. Redis orders the members of one score by their bytes, so (score, member) is each ZSET's own order
-- and the walk starts by rank: ZCOUNT below the position's score, then a binary search among the members of that
-- score (O(log² N)), never a scan from the start. Each job walked over is "examined": its record is read and
-- matched against the state, id prefix and payload filters. The walk stops at ARGV[6] matches, at ARGV[7] examined
-- jobs, or at the end of the range.
-- KEYS[1] jobs HASH, KEYS[2] scheduled:push ZSET, KEYS[3] scheduled:pull ZSET, KEYS[4] leased ZSET,
-- KEYS[5] finished ZSET
-- ARGV[1] "P" pending or "F" finished, ARGV[2] the state letters to list (S, L / Y, D, C),
-- ARGV[3] start after this score ("" from the start), ARGV[4] and this id, ARGV[5] scores below this ("" no bound),
-- ARGV[6] at most this many matches, ARGV[7] at most this many examined, ARGV[8] id prefix (""),
-- ARGV[9] payload field dot path (""), ARGV[10] its value as a string, ARGV[11] the value as a number ("" when it
-- is not a JSON number), ARGV[12] the value as a boolean ("" when it is not true or false)
-- Returns {done (1: the range is exhausted), last score, last id (of the last job examined, "" when none), examined,
-- id, score, record, id, score, record, ...}
-- Ids are compared byte by byte: Lua's < on strings follows the server's collation locale.

local jobs = KEYS[1]
local pending = ARGV[1] == 'P'
local states = ARGV[2]
local after_score, after_id = ARGV[3], ARGV[4]
local to = ARGV[5]
local limit, cap = tonumber(ARGV[6]), tonumber(ARGV[7])
local prefix = ARGV[8]
local path = ARGV[9]
local value, num, bool = ARGV[10], nil, nil
if ARGV[11] ~= '' then num = tonumber(ARGV[11]) end
if ARGV[12] ~= '' then bool = ARGV[12] == 'true' end
local CHUNK = 64

local function before(a, b)
  if a == b then return false end
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- The rank of the first member of key after (after_score, after_id).
local function start_rank(key)
  if after_score == '' then return 0 end
  local lo = redis.call('ZCOUNT', key, '-inf', '(' .. after_score)
  local hi = lo + redis.call('ZCOUNT', key, after_score, after_score)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local m = redis.call('ZRANGE', key, mid, mid)[1]
    if m == after_id or before(m, after_id) then lo = mid + 1 else hi = mid end
  end
  return lo
end

local streams = {}
local function add_stream(key)
  streams[#streams + 1] = { key = key, rank = start_rank(key), buf = {}, i = 1, over = false }
end
if pending then
  if string.find(states, 'S', 1, true) then
    add_stream(KEYS[2])
    add_stream(KEYS[3])
  end
  if string.find(states, 'L', 1, true) then add_stream(KEYS[4]) end
else
  add_stream(KEYS[5])
end

-- The stream's next entry {member, score} (nil at its end), fetched CHUNK at a time.
local function head(s)
  if s.over then return nil end
  if s.i > #s.buf then
    local got = redis.call('ZRANGE', s.key, s.rank, s.rank + CHUNK - 1, 'WITHSCORES')
    s.buf, s.i = {}, 1
    for k = 1, #got, 2 do s.buf[#s.buf + 1] = { got[k], tonumber(got[k + 1]) } end
    s.rank = s.rank + #s.buf
    if #s.buf == 0 then s.over = true; return nil end
  end
  local e = s.buf[s.i]
  if to ~= '' and e[2] >= tonumber(to) then s.over = true; return nil end
  return e
end

local segments = {}
for name in string.gmatch(path, '[^.]+') do segments[#segments + 1] = name end

local function payload_matches(payload)
  local ok, doc = pcall(cjson.decode, payload)
  if not ok then return false end
  for _, name in ipairs(segments) do
    if type(doc) ~= 'table' then return false end
    doc = doc[name]
    if doc == nil then return false end
  end
  local t = type(doc)
  if t == 'string' then return doc == value end
  if t == 'number' then return num ~= nil and doc == num end
  if t == 'boolean' then return bool ~= nil and doc == bool end
  return false
end

local out = { 0, '', '', 0 }
local found, examined = 0, 0
local last_score, last_id = '', ''
while found < limit and examined < cap do
  local best, best_s = nil, nil
  for _, s in ipairs(streams) do
    local e = head(s)
    if e and (best == nil or e[2] < best[2] or (e[2] == best[2] and before(e[1], best[1]))) then
      best, best_s = e, s
    end
  end
  if best == nil then out[1] = 1; break end
  best_s.i = best_s.i + 1
  examined = examined + 1
  last_score, last_id = string.format('%d', best[2]), best[1]
  local id = best[1]
  if prefix == '' or string.sub(id, 1, #prefix) == prefix then
    local rec = redis.call('HGET', jobs, id)
    if rec and string.find(states, string.sub(rec, 1, 1), 1, true) then
      local ok = true
      if path ~= '' then
        local nl = string.find(rec, '\n', 1, true)
        ok = nl ~= nil and payload_matches(string.sub(rec, nl + 1))
      end
      if ok then
        found = found + 1
        out[#out + 1] = id
        out[#out + 1] = last_score
        out[#out + 1] = rec
      end
    end
  end
end
if out[1] == 0 and found < limit and examined < cap then out[1] = 1 end
-- the walk may have ended on its last entry exactly: look once more, so that a finished range says so
if out[1] == 0 then
  local any = false
  for _, s in ipairs(streams) do if head(s) then any = true end end
  if not any then out[1] = 1 end
end
out[2], out[3], out[4] = last_score, last_id, examined
return out
