-- trim: drops up to :batch finished jobs older than :retentionMs, oldest first (the Redis store trims its finished
-- index in reserve; here a background reaper does it, so idle topics are trimmed too). SKIP LOCKED: instances reap
-- side by side without waiting for each other.
-- Binds: :retentionMs, :batch. Returns the number of rows dropped.
-- The cut-off is computed once (the now CTE): compared with delayq_now() itself, a volatile function, finished_at
-- could not bound the index scan, and a pass read every finished row (all of them, every second) before finding
-- that none was old enough.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
old AS (
    SELECT j.topic, j.id
    FROM delayq_jobs j
    WHERE j.finished_at < (SELECT t FROM now) - :retentionMs * interval '1 millisecond'
    ORDER BY j.finished_at
    LIMIT :batch
    FOR UPDATE SKIP LOCKED
),
dropped AS (
    DELETE FROM delayq_jobs j USING old WHERE j.topic = old.topic AND j.id = old.id RETURNING 1
)
SELECT count(*) FROM dropped
