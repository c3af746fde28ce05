-- nack: records a failed attempt (mirrors nack.lua): scheduled again after :delayMs, or DEAD into the outbox when
-- :delayMs < 0 or the job has used all its attempts.
-- A held job (:held: an open circuit breaker postponed it, so the attempt was never made) is scheduled again after
-- :delayMs with its attempt number given back (attempts - 1, as reschedule.sql gives a leased job's attempt back):
-- holding never uses up an attempt nor makes a job DEAD, even on its last attempt. Its history entry says "held", and
-- the reason is not the job's last error, since nothing failed. Counters and wake-ups as for a retry.
-- Binds: :topic, :id, :token, :delayMs, :error (or null), :httpStatus (or null), :held, :historySize, :cause (the
-- DeadCause name recorded should the job die).
-- A job that would be due again only after its own expiry (expires_at before now + :delayMs) is not put back: it is
-- DEAD with cause EXPIRED (outbox), held or not, since it could not be delivered by then. A job that dies of the
-- failure anyway keeps :cause.
-- Returns status OK, STALE_LEASE or NOT_FOUND, and expired (the job was made dead of its expiry). Wakes the lane when
-- the retry is its new earliest run time.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
target AS (
    SELECT j.topic, j.id, (NOT :held::boolean AND (:delayMs < 0 OR j.attempts >= j.max_attempts)) AS dies,
           j.expires_at
    FROM delayq_jobs j
    WHERE j.topic = :topic AND j.id = :id AND j.state = 'leased' AND j.lease_token = :token::uuid
    FOR UPDATE
),
fate AS MATERIALIZED (
    SELECT t.topic, t.id, t.dies,
           (NOT t.dies AND coalesce(t.expires_at < (SELECT now.t FROM now) + :delayMs * interval '1 millisecond',
                                    false)) AS expires
    FROM target t
),
failed AS (
    UPDATE delayq_jobs j
    SET state = CASE WHEN t.dies OR t.expires THEN 'dead'::delayq_job_state ELSE 'scheduled' END,
        run_at = CASE WHEN t.dies OR t.expires THEN j.run_at ELSE now.t + :delayMs * interval '1 millisecond' END,
        finished_at = CASE WHEN t.dies OR t.expires THEN now.t END,
        dead_cause = CASE WHEN t.dies THEN :cause::text WHEN t.expires THEN 'EXPIRED' END,
        lease_token = NULL,
        lease_deadline = NULL,
        attempts = CASE WHEN :held::boolean THEN j.attempts - 1 ELSE j.attempts END,
        last_error = CASE WHEN t.expires
                          THEN 'expired: not delivered by its expiry (' || delayq_ms(j.expires_at)
                               || ' ms since the epoch)'
                          WHEN :held::boolean THEN j.last_error ELSE coalesce(:error::text, j.last_error) END,
        -- 'held' is null (dropped from the entry) for a real failure, so its entries stay as they were
        history = delayq_history(j.history, jsonb_build_object('number', j.attempts, 'at', delayq_ms(now.t),
                                                               'error', :error::text, 'httpStatus', :httpStatus::integer,
                                                               'held', CASE WHEN :held::boolean THEN true END),
                                 :historySize)
    FROM fate t, now
    WHERE j.topic = t.topic AND j.id = t.id
    RETURNING j.*
),
archived AS (
    INSERT INTO delayq_outbox SELECT f.* FROM failed f WHERE f.state = 'dead'
),
counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, leased, scheduled, dead)
    SELECT topic, pg_backend_pid() % 16, -1, (state = 'scheduled')::int, (state = 'dead')::int FROM failed
    ON CONFLICT (topic, shard) DO UPDATE SET leased = c.leased + excluded.leased,
                                             scheduled = c.scheduled + excluded.scheduled,
                                             dead = c.dead + excluded.dead
),
woken AS (
    SELECT pg_notify('delayq_wake', f.topic || E'\n' || CASE WHEN f.push THEN 'PUSH' ELSE 'PULL' END || E'\n'
                                    || delayq_ms(f.run_at))
    FROM failed f
    WHERE f.state = 'scheduled'
      AND f.run_at < coalesce((SELECT min(j.run_at) FROM delayq_jobs j
                               WHERE j.topic = f.topic AND j.push = f.push AND j.state = 'scheduled'), 'infinity')
)
SELECT CASE WHEN EXISTS (SELECT 1 FROM failed) THEN 'OK'
            WHEN EXISTS (SELECT 1 FROM delayq_jobs x WHERE x.topic = :topic AND x.id = :id) THEN 'STALE_LEASE'
            ELSE 'NOT_FOUND' END AS status,
       EXISTS (SELECT 1 FROM fate WHERE fate.expires) AS expired,
       (SELECT count(*) FROM woken) AS woken
