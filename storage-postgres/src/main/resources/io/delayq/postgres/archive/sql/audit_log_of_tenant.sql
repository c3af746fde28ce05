-- audit_log_of_tenant: a tenant's newest audit entries first, by (at, id) (index delayq_audit_tenant, V16: :limit
-- entries of its range).
-- Binds: :tenant, :limit.
SELECT id, delayq_ms(at) AS at_ms, actor, action, target, count, detail, tenant
FROM delayq_audit
WHERE tenant = :tenant
ORDER BY at DESC, id DESC
LIMIT :limit
