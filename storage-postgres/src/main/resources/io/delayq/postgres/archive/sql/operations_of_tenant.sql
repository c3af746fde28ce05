-- operations_of_tenant: a tenant's newest bulk operations first, by (created_at, id) (index delayq_operations_tenant,
-- V16: :limit entries of its range).
-- Binds: :tenant, :limit.
SELECT id, kind, filter, state, total, done, failed, started_by, delayq_ms(created_at) AS created_at_ms,
       delayq_ms(updated_at) AS updated_at_ms, cancel_requested, last_error, tenant
FROM delayq_operations
WHERE tenant = :tenant
ORDER BY created_at DESC, id DESC
LIMIT :limit
