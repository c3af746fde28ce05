-- cancel: a scheduled or leased job becomes CANCELLED; a leased job's token goes stale (mirrors cancel.lua).
-- Binds: :topic, :id.
-- Returns no row (NOT_FOUND), or one: was (the state found, locked) and, when it was cancelled now, the job's columns.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
target AS (
    SELECT j.topic, j.id, j.state AS was FROM delayq_jobs j WHERE j.topic = :topic AND j.id = :id FOR UPDATE
),
cancelled AS (
    UPDATE delayq_jobs j
    SET state = 'cancelled', finished_at = now.t, lease_token = NULL, lease_deadline = NULL
    FROM target t, now
    WHERE j.topic = t.topic AND j.id = t.id AND t.was IN ('scheduled', 'leased')
    RETURNING j.*
),
counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, scheduled, leased)
    SELECT t.topic, pg_backend_pid() % 16, -(t.was = 'scheduled')::int, -(t.was = 'leased')::int
    FROM target t WHERE t.was IN ('scheduled', 'leased')
    ON CONFLICT (topic, shard) DO UPDATE SET scheduled = c.scheduled + excluded.scheduled,
                                             leased = c.leased + excluded.leased
)
SELECT t.was, c.* FROM target t LEFT JOIN cancelled c ON true
