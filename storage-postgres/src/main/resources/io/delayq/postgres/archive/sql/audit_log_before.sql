-- audit_log_before: the next page of the audit log: entries older than (:beforeAtMs, :beforeId), the last entry seen,
-- newest first. The row comparison is a range of index delayq_audit_newest, so a page reads :limit entries however
-- deep it is.
-- Binds: :beforeAtMs, :beforeId, :limit.
SELECT id, delayq_ms(at) AS at_ms, actor, action, target, count, detail, tenant
FROM delayq_audit
WHERE (at, id) < (delayq_ts(:beforeAtMs::bigint), :beforeId::text)
ORDER BY at DESC, id DESC
LIMIT :limit
