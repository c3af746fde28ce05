-- request_cancel: sets cancel_requested on a running operation (primary key); an operation that finished is left as
-- it is. Either way the row is returned as stored afterwards; no row when there is none of that id, or it is not
-- :tenant's (NULL: an operator's cancel, of anyone's): another tenant's operation is left alone, as unknown.
-- Binds: :id, :tenant.
WITH cancelled AS (
    UPDATE delayq_operations
    SET cancel_requested = true
    WHERE id = :id AND state = 'RUNNING' AND (:tenant::text IS NULL OR tenant = :tenant::text)
    RETURNING *
)
SELECT id, kind, filter, state, total, done, failed, started_by, delayq_ms(created_at) AS created_at_ms,
       delayq_ms(updated_at) AS updated_at_ms, cancel_requested, last_error, tenant
FROM cancelled
UNION ALL
-- not running (or unknown): the row as it is, if it is the tenant's
SELECT id, kind, filter, state, total, done, failed, started_by, delayq_ms(created_at), delayq_ms(updated_at),
       cancel_requested, last_error, tenant
FROM delayq_operations
WHERE id = :id AND (:tenant::text IS NULL OR tenant = :tenant::text) AND NOT EXISTS (SELECT 1 FROM cancelled)
