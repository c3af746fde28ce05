-- reschedule: a scheduled or leased job is scheduled at a new run time; a leased job's token goes stale (mirrors
-- reschedule.lua). The attempt of a leased job is withdrawn, not used up: its number is given back (the next lease
-- gets it again, so no attempt number exceeds max_attempts) and the history says it was interrupted.
-- Binds: :topic, :id, :delayMs or :runAtMs (the other null), :historySize.
-- Returns no row (NOT_FOUND), or one: was (the state found, locked) and, when it was moved now, the job's columns.
-- Wakes the lane when the new run time is its earliest.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
target AS (
    SELECT j.topic, j.id, j.state AS was FROM delayq_jobs j WHERE j.topic = :topic AND j.id = :id FOR UPDATE
),
moved AS (
    UPDATE delayq_jobs j
    SET state = 'scheduled',
        run_at = CASE WHEN :delayMs::bigint IS NOT NULL THEN now.t + :delayMs * interval '1 millisecond'
                      ELSE delayq_ts(:runAtMs::bigint) END,
        lease_token = NULL,
        lease_deadline = NULL,
        attempts = CASE WHEN t.was = 'leased' THEN j.attempts - 1 ELSE j.attempts END,
        history = CASE WHEN t.was = 'leased'
                       THEN delayq_history(j.history, jsonb_build_object('number', j.attempts, 'at', delayq_ms(now.t),
                                'error', 'rescheduled during the attempt; the attempt does not count'), :historySize)
                       ELSE j.history END
    FROM target t, now
    WHERE j.topic = t.topic AND j.id = t.id AND t.was IN ('scheduled', 'leased')
    RETURNING j.*
),
counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, scheduled, leased)
    SELECT t.topic, pg_backend_pid() % 16, 1, -1 FROM target t WHERE t.was = 'leased'
    ON CONFLICT (topic, shard) DO UPDATE SET scheduled = c.scheduled + excluded.scheduled,
                                             leased = c.leased + excluded.leased
),
woken AS (
    SELECT pg_notify('delayq_wake', m.topic || E'\n' || CASE WHEN m.push THEN 'PUSH' ELSE 'PULL' END || E'\n'
                                    || delayq_ms(m.run_at))
    FROM moved m
    WHERE m.run_at < coalesce((SELECT min(j.run_at) FROM delayq_jobs j
                               WHERE j.topic = m.topic AND j.push = m.push AND j.state = 'scheduled'
                                 AND j.id <> m.id), 'infinity')
)
SELECT t.was, m.*, (SELECT count(*) FROM woken) AS woken FROM target t LEFT JOIN moved m ON true
