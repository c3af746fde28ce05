-- settings: writes a topic's settings only if they are still what the caller read (compare-and-set), so that two
-- concurrent updates of different fields cannot undo each other: the loser reads again and applies its change anew.
-- KEYS[1] settings HASH
-- ARGV[1] topic, ARGV[2] '1' when the caller read settings, '0' when it found none, ARGV[3] the settings it read
-- (JSON, '' when none), ARGV[4] the new settings (JSON)
-- Returns 1 written, 0 changed meanwhile (nothing written)
--#include lib/record.lua

local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  if current ~= ARGV[3] then return 0 end
elseif current then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
return 1
