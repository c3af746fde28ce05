-- deadLetter: one live dead letter by its key (primary key); none when there is none or it is a tombstone.
-- Binds: :key.
SELECT key, delayq_ms(dead_at) AS dead_at_ms, replay_count, replays::text AS replays, job::text AS job, payload
FROM delayq_dead_letters
WHERE key = :key AND purged_at IS NULL
