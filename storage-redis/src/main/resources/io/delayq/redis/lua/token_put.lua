-- token_put: creates or replaces an API token's record (its SHA-256, never the token), if the tenancy version is
-- still the one the caller read (compare-and-set, TenantRegistry.putToken); a revocation is a put. Its last use is
-- kept.
-- KEYS[1] version STRING, KEYS[2] tokens HASH
-- ARGV[1] the version the caller read, ARGV[2] the token's field ("<tenant>/<name>", "/<name>" for an operators'
-- token), ARGV[3] the token as JSON
-- Returns 1 written, 0 the version moved meanwhile (nothing written)

if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('INCR', KEYS[1])
return 1
