-- save_operation: writes a bulk operation whole, inserted or replacing the row of its id (primary key). Its expiry is
-- its last change (updatedAt) plus :retentionMs.
-- Binds: :id, :kind, :filter, :state, :total, :done, :failed, :startedBy, :createdAt, :updatedAt (epoch ms),
-- :cancelRequested, :lastError, :tenant, :retentionMs.
INSERT INTO delayq_operations AS o (id, kind, filter, state, total, done, failed, started_by, created_at, updated_at,
                                    cancel_requested, last_error, tenant, expire_at)
VALUES (:id, :kind, :filter, :state, :total, :done, :failed, :startedBy, delayq_ts(:createdAt::bigint),
        delayq_ts(:updatedAt::bigint), :cancelRequested, :lastError::text, :tenant::text,
        delayq_ts(:updatedAt::bigint) + :retentionMs * interval '1 millisecond')
ON CONFLICT (id) DO UPDATE
    SET kind = excluded.kind, filter = excluded.filter, state = excluded.state, total = excluded.total,
        done = excluded.done, failed = excluded.failed, started_by = excluded.started_by,
        created_at = excluded.created_at, updated_at = excluded.updated_at,
        cancel_requested = excluded.cancel_requested, last_error = excluded.last_error, tenant = excluded.tenant,
        expire_at = excluded.expire_at
