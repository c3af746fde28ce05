-- tenancy_read: every tenant and token, their last uses, and the version they are at, in one atomic read
-- (TenantRegistry.read): no change can fall between the version and the records, so an instance that holds a snapshot
-- of version v holds exactly what v wrote.
-- KEYS[1] version STRING, KEYS[2] tenants HASH, KEYS[3] tokens HASH, KEYS[4] used HASH
-- ARGV none
-- Returns {version, {name, tenant JSON, …}, {field, token JSON, …}, {field, last use ms, …}}

return {redis.call('GET', KEYS[1]) or '0', redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3]),
  redis.call('HGETALL', KEYS[4])}
