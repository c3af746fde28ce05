-- purge: turns up to :batch live dead letters matching the filter into tombstones: the key, purged_at and expire_at
-- (purged_at + :tombstoneRetentionMs) stay, every other column (the payload and the dead notice included) is cleared,
-- so no query of live letters or of due notices can match it and write.sql leaves it alone. Newest first, through
-- the filter's index; FOR UPDATE re-checks a row another purge changed meanwhile.
-- The filter is DeadLetterFilter's conditions (a job id, or a listing's filters without its cursor).
-- Binds: those of DeadLetterFilter's conditions (:topic, :id, :fromMs, :toMs, :replayed, :host, :httpStatus,
-- :idFrom, :idTo, :idPrefix, :payloadText, :payloadLiteral, :group), :tombstoneRetentionMs,
-- :batch.
-- Returns the number of letters purged; the caller repeats while it is :batch.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t)
UPDATE delayq_dead_letters d
SET purged_at = now.t, expire_at = now.t + :tombstoneRetentionMs * interval '1 millisecond',
    topic = NULL, id = NULL, dead_at = NULL, replay_count = NULL, replays = NULL, job = NULL, payload = NULL,
    payload_doc = NULL, signature_id = NULL, signature_kind = NULL, signature_message = NULL, signature_host = NULL,
    http_status = NULL, notice_state = NULL, notice_attempts = NULL, notice_next_attempt_at = NULL,
    notice_delivered_at = NULL, notice_last_error = NULL, notice_last_status = NULL
FROM now
WHERE d.key IN (SELECT key
                FROM delayq_dead_letters
                WHERE purged_at IS NULL <filter>
                ORDER BY dead_at DESC, key DESC
                LIMIT :batch
                FOR UPDATE)
  AND d.purged_at IS NULL
