-- rate_take: takes up to ARGV[3] permits from one token bucket (RateLimiters.take), by Redis's clock (TIME, in µs):
-- the bucket is refilled for the time since its last take (at ARGV[1] per second, never beyond the burst ARGV[2], so a
-- smaller burst cuts a fuller bucket down at once), then as many whole permits as it holds, up to those wanted, are
-- taken. A missing bucket is a full one, so the key expires when the bucket would be full again (at most after
-- Rate.fullAfterMs): forgetting it then changes nothing, and an idle bucket costs no memory. A value this script
-- cannot read counts as a full bucket (a limit is soft state; it must not stop the traffic it limits).
-- KEYS[1] the bucket STRING "<tokens> <last take, µs since the epoch>"
-- ARGV[1] permits per second, ARGV[2] burst, ARGV[3] permits wanted
-- Returns {granted, retry after ms}: when fewer were granted than wanted, how long until the next whole permit, else 0

local key = KEYS[1]
local rate, burst, wanted = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local tokens, at
local stored = redis.call('GET', key)
if stored then
  local space = string.find(stored, ' ', 1, true)
  if space then
    tokens, at = tonumber(string.sub(stored, 1, space - 1)), tonumber(string.sub(stored, space + 1))
  end
end
if tokens and at then
  -- a clock that went back (a failover to a node whose clock is behind) refills nothing, and the last take stays
  if now > at then
    tokens = tokens + (now - at) * rate / 1000000
    at = now
  end
  if tokens > burst then tokens = burst end
else
  tokens, at = burst, now
end

local granted = math.min(wanted, math.floor(tokens))
tokens = tokens - granted
local retry = 0
if granted < wanted then
  retry = math.max(1, math.ceil((1 - tokens) * 1000 / rate))
end
-- 1 ms more than the time to full, so that rounding never forgets a bucket before it is full; capped (a rate of a
-- permit a century would otherwise ask for an expiry Redis refuses) at about 100 years
local keep = math.min(math.ceil((burst - tokens) * 1000 / rate) + 1, 3153600000000)
redis.call('SET', key, string.format('%.17g %.0f', tokens, at), 'PX', string.format('%.0f', keep))
return {granted, retry}
