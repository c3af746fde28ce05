-- expire_overdue: the safety sweep for expired jobs nobody reserves (mirrors expire_overdue.lua): of the lane's :max
-- earliest due jobs, those whose expiry passed (expires_at, else run_at + :expiresAfterMs when that is > 0) become
-- DEAD with cause EXPIRED, into the outbox, as reserve.sql does; the others are not touched (nor locked for long:
-- SKIP LOCKED steps over rows a reserve holds).
-- Binds: :topic, :push, :max, :expiresAfterMs.
-- Returns the number of jobs that expired.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
due AS MATERIALIZED (
    SELECT j.ctid AS tid,
           coalesce(j.expires_at, CASE WHEN :expiresAfterMs > 0
                                       THEN j.run_at + :expiresAfterMs * interval '1 millisecond' END) AS expiry
    FROM delayq_jobs j
    WHERE j.topic = :topic AND j.push = :push AND j.state = 'scheduled' AND j.run_at <= (SELECT t FROM now)
    ORDER BY j.run_at
    LIMIT :max
    FOR UPDATE SKIP LOCKED
),
expired AS (
    UPDATE delayq_jobs j
    SET state = 'dead',
        finished_at = now.t,
        dead_cause = 'EXPIRED',
        last_error = 'expired: not delivered by its expiry (' || delayq_ms(d.expiry) || ' ms since the epoch)'
    FROM now, due d
    WHERE j.ctid = d.tid AND d.expiry < now.t
    RETURNING j.*
),
archived AS (
    INSERT INTO delayq_outbox SELECT x.* FROM expired x
),
counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, scheduled, dead)
    SELECT :topic, pg_backend_pid() % 16, -count(*), count(*) FROM expired HAVING count(*) > 0
    ON CONFLICT (topic, shard) DO UPDATE SET scheduled = c.scheduled + excluded.scheduled,
                                             dead = c.dead + excluded.dead
)
SELECT count(*) AS expired FROM expired
