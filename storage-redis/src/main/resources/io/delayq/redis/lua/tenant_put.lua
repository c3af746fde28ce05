-- tenant_put: creates or replaces a tenant, if the tenancy version is still the one the caller read
-- (compare-and-set, TenantRegistry.putTenant). The version moves by one in the same script, so of two writers that
-- read one version only the first writes: the other reads again and checks its change against the winner's (e.g. that
-- its topic patterns overlap no other tenant's).
-- KEYS[1] version STRING, KEYS[2] tenants HASH
-- ARGV[1] the version the caller read, ARGV[2] the tenant's name, ARGV[3] the tenant as JSON
-- Returns 1 written, 0 the version moved meanwhile (nothing written)

if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('INCR', KEYS[1])
return 1
