-- operations: the newest bulk operations first, by (created_at, id) (index delayq_operations_newest: :limit entries).
-- Binds: :limit.
SELECT id, kind, filter, state, total, done, failed, started_by, delayq_ms(created_at) AS created_at_ms,
       delayq_ms(updated_at) AS updated_at_ms, cancel_requested, last_error, tenant
FROM delayq_operations
ORDER BY created_at DESC, id DESC
LIMIT :limit
