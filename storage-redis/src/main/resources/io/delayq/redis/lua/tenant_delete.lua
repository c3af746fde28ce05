-- tenant_delete: deletes a tenant, if the tenancy version is still the one the caller read (compare-and-set,
-- TenantRegistry.deleteTenant). The version moves only when a tenant was deleted: deleting a missing one writes
-- nothing. The tenant's tokens are records of their own, deleted by the caller (a token may also belong to a tenant
-- declared in config.yml, which is never stored).
-- KEYS[1] version STRING, KEYS[2] tenants HASH
-- ARGV[1] the version the caller read, ARGV[2] the tenant's name
-- Returns 1 the version held (the tenant is gone, or never was), 0 the version moved meanwhile (nothing written)

if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then return 0 end
if redis.call('HDEL', KEYS[2], ARGV[2]) == 1 then
  redis.call('INCR', KEYS[1])
end
return 1
