-- schedule_fire: one fire of a recurring schedule, compared-and-set on its cursor, with the job it enqueues, in one
-- statement (twin of schedule_fire.lua). With :cas false, a run-now: no cursor compared or moved.
-- Binds: :topic, :name, :cas, :expectedCursor, :newCursor, :dueAtMs (null: none), :fire (JSON text, or null: no fire
-- recorded), :hasJob, then the job's columns as one job of enqueue.sql: :id, :push, :delayMs, :runAtMs, :maxAttempts,
-- :fingerprint, :timeoutMs, :broadcast, :callback, :backoff, :payload, :traceparent, :tracestate, :onDead.
-- The UPDATE of a row another transaction holds waits for it and then re-reads the cursor (READ COMMITTED), so of
-- two instances firing the same time one updates and the other finds the cursor moved and writes no job.
-- Returns one row: applied (1 or 0), found (whether the schedule exists), created (whether the job was written).
WITH now AS MATERIALIZED (SELECT t, delayq_ms(t) AS ms FROM (SELECT delayq_now() AS t) c),
claimed AS (
    UPDATE delayq_schedules
    SET cursor_ms = CASE WHEN :cas THEN :newCursor::bigint ELSE cursor_ms END,
        due_at_ms = CASE WHEN :cas THEN :dueAtMs::bigint ELSE due_at_ms END,
        fires = CASE WHEN :fire::text IS NULL THEN fires
                     ELSE (fires || :fire::text)[greatest(1, cardinality(fires) + 2 - 20):] END
    WHERE topic = :topic AND name = :name AND (NOT :cas OR cursor_ms = :expectedCursor::bigint)
    RETURNING 1
),
created AS (
    INSERT INTO delayq_jobs (topic, id, state, push, run_at, max_attempts, created_at, fingerprint, timeout_ms,
                             broadcast, callback, backoff, payload, traceparent, tracestate, on_dead)
    SELECT :topic, :id, 'scheduled', :push,
           CASE WHEN :delayMs::bigint IS NOT NULL THEN now.t + :delayMs::bigint * interval '1 millisecond'
                ELSE delayq_ts(:runAtMs::bigint) END,
           :maxAttempts, now.t, :fingerprint, :timeoutMs::bigint, :broadcast, :callback::jsonb, :backoff::jsonb,
           :payload, :traceparent, :tracestate, :onDead::jsonb
    FROM now
    WHERE :hasJob AND EXISTS (SELECT 1 FROM claimed)
    ON CONFLICT (topic, id) DO NOTHING
    RETURNING topic, push, run_at
),
counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, scheduled)
    SELECT topic, pg_backend_pid() % 16, count(*) FROM created GROUP BY topic
    ON CONFLICT (topic, shard) DO UPDATE SET scheduled = c.scheduled + excluded.scheduled
    RETURNING 1
),
woken AS (
    SELECT pg_notify('delayq_wake', l.topic || E'\n' || CASE WHEN l.push THEN 'PUSH' ELSE 'PULL' END || E'\n'
                                    || delayq_ms(l.run_at))
    FROM created l
    WHERE l.run_at < coalesce((SELECT min(j.run_at) FROM delayq_jobs j
                               WHERE j.topic = l.topic AND j.push = l.push AND j.state = 'scheduled'), 'infinity')
)
-- counted and woken are selected so that they run: an unreferenced SELECT in WITH is never executed
SELECT (SELECT count(*) FROM claimed) AS applied,
       EXISTS (SELECT 1 FROM delayq_schedules WHERE topic = :topic AND name = :name) AS found,
       (SELECT count(*) FROM created) AS created,
       (SELECT count(*) FROM counted) + (SELECT count(*) FROM woken) AS side_effects
