-- dead_letter: one live dead letter by its key (primary key); none when there is none or it is a tombstone.
-- Binds: :key.
SELECT key, delayq_ms(dead_at) AS dead_at_ms, replay_count, replays::text AS replays, job::text AS job, payload, notice_state, notice_attempts, delayq_ms(notice_next_attempt_at) AS notice_next_attempt_at_ms,
       delayq_ms(notice_delivered_at) AS notice_delivered_at_ms, notice_last_error, notice_last_status
FROM delayq_dead_letters
WHERE key = :key AND purged_at IS NULL
