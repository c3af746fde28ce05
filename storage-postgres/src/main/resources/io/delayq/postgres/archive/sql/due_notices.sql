-- due_notices: the dead letters whose notice is pending and due (notice_next_attempt_at <= :nowMs), earliest due first
-- (ties by key), at most :limit: what the notice sender claims next. A notice being sent is pending with its claim's
-- lapse as notice_next_attempt_at, so it comes back only if its sender died. An index range of
-- delayq_dead_letters_notices_due (V11), which holds pending notices only, in this order: no Sort, and nothing read of
-- the letters whose notice is settled or that have none. A tombstone has no notice (V11's CHECK).
-- Binds: :nowMs (epoch ms, clamped to PostgreSQL's range in Java), :limit.
SELECT key, delayq_ms(dead_at) AS dead_at_ms, replay_count, replays::text AS replays, job::text AS job, payload,
       notice_state, notice_attempts, delayq_ms(notice_next_attempt_at) AS notice_next_attempt_at_ms,
       delayq_ms(notice_delivered_at) AS notice_delivered_at_ms, notice_last_error, notice_last_status
FROM delayq_dead_letters
WHERE notice_state = 'PENDING' AND notice_next_attempt_at <= delayq_ts(:nowMs)
ORDER BY notice_next_attempt_at, key
LIMIT :limit
