-- record_notice: replaces a live dead letter's notice, only if its notice's attempts are still :expected (a compare and
-- set: of several instances claiming one notice, one wins and sends it). Never matches a tombstone, nor a letter
-- without a notice. Under READ COMMITTED a caller that waited for another's row lock re-checks the condition on the
-- row as that one left it, so two callers with the same expectation never both succeed.
-- Binds: :key, :expected, and the notice whole: :state (DeadNotice.State's name), :attempts, :nextAttemptAtMs,
-- :deliveredAtMs (null: not delivered), :lastError, :lastStatus (nulls: none).
-- Returns the number of rows changed: 1 recorded, 0 not.
UPDATE delayq_dead_letters
SET notice_state = :state, notice_attempts = :attempts, notice_next_attempt_at = delayq_ts(:nextAttemptAtMs),
    notice_delivered_at = delayq_ts(:deliveredAtMs), notice_last_error = :lastError, notice_last_status = :lastStatus
WHERE key = :key AND purged_at IS NULL AND notice_attempts = :expected
