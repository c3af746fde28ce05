-- tenancy_read: every tenant and token, their last uses, and the version they are at (mirrors tenancy_read.lua): one
-- statement, so one snapshot, and no change falls between the version and the records.
-- Returns one row: version; tenants, a JSON array of the tenants' records; tokens, a JSON array of the tokens'
-- records; uses, a JSON array of [tenant ('' for operators), name, last use in epoch ms].
SELECT (SELECT version FROM delayq_tenancy) AS version,
       (SELECT coalesce(json_agg(tenant ORDER BY name), '[]') FROM delayq_tenants)::text AS tenants,
       (SELECT coalesce(json_agg(token ORDER BY tenant, name), '[]') FROM delayq_tokens)::text AS tokens,
       (SELECT coalesce(json_agg(json_build_array(tenant, name, delayq_ms(last_used_at)) ORDER BY tenant, name), '[]')
        FROM delayq_tokens WHERE last_used_at IS NOT NULL)::text AS uses
