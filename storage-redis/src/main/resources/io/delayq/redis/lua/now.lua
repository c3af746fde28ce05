-- now: the server's clock (now_ms of lib/record.lua, the clock every script decides by), so that every instance
-- reads one clock.
-- KEYS[1] any key: routes the call on a cluster (not read)
-- ARGV none
-- Returns the time in ms since the epoch
--#include lib/record.lua

return now_ms()
