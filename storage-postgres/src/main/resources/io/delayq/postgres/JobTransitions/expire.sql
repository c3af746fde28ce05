-- expire: takes back up to :max leases of one topic whose deadline has passed (mirrors expire.lua). Each is a failed
-- attempt ("lease expired"): due again at once, or DEAD into the outbox when the job has no attempts left.
-- Binds: :topic, :max, :historySize.
-- Returns the number of leases taken back. Wakes each lane whose earliest run time moved earlier.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
expired AS MATERIALIZED (
    SELECT j.topic, j.id, j.attempts >= j.max_attempts AS dies
    FROM delayq_jobs j
    WHERE j.topic = :topic AND j.state = 'leased' AND j.lease_deadline <= (SELECT t FROM now)
    ORDER BY j.lease_deadline
    LIMIT :max
    FOR UPDATE SKIP LOCKED
),
taken AS (
    UPDATE delayq_jobs j
    SET state = CASE WHEN e.dies THEN 'dead'::delayq_job_state ELSE 'scheduled' END,
        run_at = CASE WHEN e.dies THEN j.run_at ELSE now.t END,
        finished_at = CASE WHEN e.dies THEN now.t END,
        lease_token = NULL,
        lease_deadline = NULL,
        last_error = 'lease expired',
        history = delayq_history(j.history, jsonb_build_object('number', j.attempts, 'at', delayq_ms(now.t),
                                                               'error', 'lease expired'),
                                 :historySize)
    FROM expired e, now
    WHERE j.topic = e.topic AND j.id = e.id
    RETURNING j.*
),
archived AS (
    INSERT INTO delayq_outbox SELECT t.* FROM taken t WHERE t.state = 'dead'
),
counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, leased, scheduled, dead)
    SELECT :topic, pg_backend_pid() % 16, -count(*), count(*) FILTER (WHERE state = 'scheduled'),
           count(*) FILTER (WHERE state = 'dead')
    FROM taken HAVING count(*) > 0
    ON CONFLICT (topic, shard) DO UPDATE SET leased = c.leased + excluded.leased,
                                             scheduled = c.scheduled + excluded.scheduled,
                                             dead = c.dead + excluded.dead
),
woken AS (
    SELECT pg_notify('delayq_wake', l.topic || E'\n' || CASE WHEN l.push THEN 'PUSH' ELSE 'PULL' END || E'\n'
                                    || delayq_ms(l.first))
    FROM (SELECT topic, push, min(run_at) AS first FROM taken WHERE state = 'scheduled' GROUP BY topic, push) l
    WHERE l.first < coalesce((SELECT min(j.run_at) FROM delayq_jobs j
                              WHERE j.topic = l.topic AND j.push = l.push AND j.state = 'scheduled'), 'infinity')
)
SELECT (SELECT count(*) FROM taken) AS taken, (SELECT count(*) FROM woken) AS woken
