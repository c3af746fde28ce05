-- operation: one bulk operation by its id (primary key).
-- Binds: :id.
SELECT id, kind, filter, state, total, done, failed, started_by, delayq_ms(created_at) AS created_at_ms,
       delayq_ms(updated_at) AS updated_at_ms, cancel_requested, last_error
FROM delayq_operations
WHERE id = :id
