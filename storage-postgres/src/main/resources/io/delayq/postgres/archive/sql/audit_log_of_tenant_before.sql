-- audit_log_of_tenant_before: the next page of a tenant's audit log: its entries older than (:beforeAtMs, :beforeId),
-- the last entry it saw, newest first. The tenant and the row comparison are a range of index delayq_audit_tenant
-- (V16), so a page reads :limit entries however deep it is.
-- Binds: :tenant, :beforeAtMs, :beforeId, :limit.
SELECT id, delayq_ms(at) AS at_ms, actor, action, target, count, detail, tenant
FROM delayq_audit
WHERE tenant = :tenant AND (at, id) < (delayq_ts(:beforeAtMs::bigint), :beforeId::text)
ORDER BY at DESC, id DESC
LIMIT :limit
