-- audit_log: the newest audit entries first, by (at, id) (index delayq_audit_newest: :limit entries).
-- Binds: :limit.
SELECT id, delayq_ms(at) AS at_ms, actor, action, target, count, detail, tenant
FROM delayq_audit
ORDER BY at DESC, id DESC
LIMIT :limit
