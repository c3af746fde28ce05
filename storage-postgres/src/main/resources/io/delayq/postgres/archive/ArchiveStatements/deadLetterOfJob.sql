-- deadLetterOfJob: the newest live dead letter of a job id (index delayq_dead_letters_job).
-- Binds: :topic, :id.
SELECT key, delayq_ms(dead_at) AS dead_at_ms, replay_count, replays::text AS replays, job::text AS job, payload
FROM delayq_dead_letters
WHERE topic = :topic AND id = :id AND purged_at IS NULL
ORDER BY dead_at DESC, key DESC
LIMIT 1
