-- deadLetters: one page of live dead letters, newest first by (dead_at, key).
-- The filter is DeadLetterFilter's conditions (topic, dead_at range, replayed, and the cursor's position as a row
-- comparison, (dead_at, key) < (cursor)), each with its own bind; every combination has an index in this order
-- (V3), so a page reads :limit index entries.
-- Binds: those of DeadLetterFilter's conditions (:topic, :fromMs, :toMs, :replayed, :afterDeadAtMs, :afterKey),
-- :limit.
SELECT key, delayq_ms(dead_at) AS dead_at_ms, replay_count, replays::text AS replays, job::text AS job, payload
FROM delayq_dead_letters
WHERE purged_at IS NULL <filter>
ORDER BY dead_at DESC, key DESC
LIMIT :limit
