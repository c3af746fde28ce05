-- dead_letters: one page of live dead letters, newest first by (dead_at, key).
-- The filter is DeadLetterFilter's conditions (topic, dead_at range, replayed, host, status, id prefix, payload,
-- group, and the cursor's position as a row comparison, (dead_at, key) < (cursor)), each with its own bind; topic,
-- time and replayed in every combination have an index in this order (V3), as have host, status and group (V5), so a
-- page reads :limit index entries. An id prefix over every topic is a range of delayq_dead_letters_id, a payload
-- field a containment through the GIN index delayq_dead_letters_payload; both then sort what they matched.
-- Binds: those of DeadLetterFilter's conditions (:topic, :fromMs, :toMs, :replayed, :host, :httpStatus, :idFrom,
-- :idTo, :idPrefix, :payloadText, :payloadLiteral, :group, :afterDeadAtMs, :afterKey), :limit.
SELECT key, delayq_ms(dead_at) AS dead_at_ms, replay_count, replays::text AS replays, job::text AS job, payload, notice_state, notice_attempts, delayq_ms(notice_next_attempt_at) AS notice_next_attempt_at_ms,
       delayq_ms(notice_delivered_at) AS notice_delivered_at_ms, notice_last_error, notice_last_status
FROM delayq_dead_letters
WHERE purged_at IS NULL <filter>
ORDER BY dead_at DESC, key DESC
LIMIT :limit
