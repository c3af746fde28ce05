-- operation: one bulk operation by its id (primary key), if it is :tenant's (NULL: whoever's it is, an operator's read).
-- Binds: :id, :tenant.
SELECT id, kind, filter, state, total, done, failed, started_by, delayq_ms(created_at) AS created_at_ms,
       delayq_ms(updated_at) AS updated_at_ms, cancel_requested, last_error, tenant
FROM delayq_operations
WHERE id = :id AND (:tenant::text IS NULL OR tenant = :tenant::text)
