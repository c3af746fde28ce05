-- report_progress: a running operation's progress, in one UPDATE of its row (primary key): done, failed, last_error,
-- updated_at (and expire_at with it), and state only when :state is a finished one. cancel_requested is not
-- written, so a cancel another instance requested meanwhile stays, and is in the row returned.
-- Binds: :id, :done, :failed, :lastError, :updatedAt (epoch ms), :state, :retentionMs.
-- Returns the operation as stored afterwards; no row when there is none of that id.
UPDATE delayq_operations
SET done = :done, failed = :failed, last_error = :lastError::text, updated_at = delayq_ts(:updatedAt::bigint),
    expire_at = delayq_ts(:updatedAt::bigint) + :retentionMs * interval '1 millisecond',
    state = CASE WHEN :state::text = 'RUNNING' THEN state ELSE :state::text END
WHERE id = :id
RETURNING id, kind, filter, state, total, done, failed, started_by, delayq_ms(created_at) AS created_at_ms,
          delayq_ms(updated_at) AS updated_at_ms, cancel_requested, last_error, tenant, tenant
