-- expire: takes back up to :max leases of one topic whose deadline has passed (mirrors expire.lua). An expired lease
-- is an unknown outcome (the callback may have answered 2xx and the ack been lost). Before the last attempt it counts
-- as a failed attempt ("lease expired"): due again at once. On the last attempt the job is due again at once under the
-- same attempt number, without using the attempt up, at most :lastAttemptRetries times (counted by the history entries
-- that say so); after that it is DEAD into the outbox with a last error that says the outcome is unknown.
-- A job that would be due again but whose own expiry (expires_at) has passed is not: it is DEAD with cause EXPIRED
-- (outbox), as reserve.sql would make it at its next reserve; a job that dies of its expired last attempt keeps
-- LEASE_EXPIRED.
-- Binds: :topic, :max, :historySize, :lastAttemptRetries.
-- Returns the number of leases taken back (taken), of those made dead of their expiry (expired) and of those made dead
-- of their expired last attempt (died, cause LEASE_EXPIRED). Wakes each lane whose earliest run time moved earlier.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
expired AS MATERIALIZED (
    SELECT j.topic, j.id,
           CASE WHEN j.attempts >= j.max_attempts
                     AND (SELECT count(*) FROM jsonb_array_elements(j.history) h
                          WHERE h ->> 'error' = 'lease expired on the last attempt: outcome unknown, tried again')
                         >= :lastAttemptRetries THEN 'dies'
                WHEN j.expires_at < (SELECT t FROM now) THEN 'expired'
                WHEN j.attempts < j.max_attempts THEN 'retry'
                ELSE 'again' END AS fate
    FROM delayq_jobs j
    WHERE j.topic = :topic AND j.state = 'leased' AND j.lease_deadline <= (SELECT t FROM now)
    ORDER BY j.lease_deadline
    LIMIT :max
    FOR UPDATE SKIP LOCKED
),
taken AS (
    UPDATE delayq_jobs j
    SET state = CASE WHEN e.fate IN ('dies', 'expired') THEN 'dead'::delayq_job_state ELSE 'scheduled' END,
        run_at = CASE WHEN e.fate IN ('dies', 'expired') THEN j.run_at ELSE now.t END,
        finished_at = CASE WHEN e.fate IN ('dies', 'expired') THEN now.t END,
        dead_cause = CASE WHEN e.fate = 'dies' THEN 'LEASE_EXPIRED' WHEN e.fate = 'expired' THEN 'EXPIRED' END,
        attempts = CASE WHEN e.fate = 'again' THEN j.attempts - 1 ELSE j.attempts END,
        lease_token = NULL,
        lease_deadline = NULL,
        last_error = CASE WHEN e.fate = 'dies'
                          THEN 'lease expired on the last attempt: outcome unknown (no answer was recorded; the'
                               ' callback may have succeeded)'
                          WHEN e.fate = 'expired'
                          THEN 'expired: not delivered by its expiry (' || delayq_ms(j.expires_at)
                               || ' ms since the epoch)'
                          ELSE 'lease expired' END,
        history = delayq_history(j.history, jsonb_build_object('number', j.attempts, 'at', delayq_ms(now.t),
                                  'error', CASE WHEN e.fate = 'again'
                                                THEN 'lease expired on the last attempt: outcome unknown, tried again'
                                                ELSE 'lease expired' END),
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
SELECT (SELECT count(*) FROM taken) AS taken, (SELECT count(*) FROM taken WHERE dead_cause = 'EXPIRED') AS expired,
       (SELECT count(*) FROM taken WHERE dead_cause = 'LEASE_EXPIRED') AS died,
       (SELECT count(*) FROM woken) AS woken
