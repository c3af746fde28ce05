-- token_delete: deletes an API token's record and its last use, if the tenancy version is still the one the caller
-- read (compare-and-set, TenantRegistry.deleteToken). The version moves only when a token was deleted.
-- KEYS[1] version STRING, KEYS[2] tokens HASH, KEYS[3] used HASH
-- ARGV[1] the version the caller read, ARGV[2] the token's field ("<tenant>/<name>", "/<name>")
-- Returns 1 the version held (the token is gone, or never was), 0 the version moved meanwhile (nothing written)

if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then return 0 end
if redis.call('HDEL', KEYS[2], ARGV[2]) == 1 then
  redis.call('HDEL', KEYS[3], ARGV[2])
  redis.call('INCR', KEYS[1])
end
return 1
