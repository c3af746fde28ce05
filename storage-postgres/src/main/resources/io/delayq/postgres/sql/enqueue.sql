-- enqueue: schedules jobs of any topics, idempotently per topic and id (mirrors enqueue.lua).
-- Binds (arrays, one element per job, ids distinct per topic, sorted by topic and id so that concurrent batches lock
-- rows in one order): :topics, :ids, :push, :delayMs (null where runAtMs is given), :runAtMs (epoch ms, null where
-- delayMs is given), :maxAttempts, :fingerprints, :timeoutMs, :broadcast, :callbacks (JSON or null), :backoffs (JSON
-- or null), :payloads, :traceparents and :tracestates (null where the job has no trace context), :onDeads (the job's
-- own dead-notice target as JSON, or null), :expiresAtMs (the job's own expiry, epoch ms, or null).
-- Returns one row per job created now (topic, id, run_at, created_at); a job not returned already existed.
-- NOTIFY delayq_wake 'topic\nLANE\nms' once per topic and lane whose earliest run time moved earlier. The "before" is
-- read from the statement's snapshot, which does not see this statement's own inserts.
WITH now AS MATERIALIZED (SELECT t, delayq_ms(t) AS ms FROM (SELECT delayq_now() AS t) c),
input AS (
    SELECT *
    FROM unnest(:topics::text[], :ids::text[], :push::boolean[], :delayMs::bigint[], :runAtMs::bigint[],
                :maxAttempts::integer[], :fingerprints::text[], :timeoutMs::bigint[], :broadcast::boolean[],
                :callbacks::text[], :backoffs::text[], :payloads::text[], :traceparents::text[],
                :tracestates::text[], :onDeads::text[], :expiresAtMs::bigint[])
         WITH ORDINALITY AS i(topic, id, push, delay_ms, run_at_ms, max_attempts, fingerprint, timeout_ms, broadcast,
                              callback, backoff, payload, traceparent, tracestate, on_dead, expires_at_ms, ord)
),
created AS (
    INSERT INTO delayq_jobs (topic, id, state, push, run_at, max_attempts, created_at, fingerprint, timeout_ms,
                             broadcast, callback, backoff, payload, traceparent, tracestate, on_dead, expires_at)
    SELECT i.topic, i.id, 'scheduled', i.push,
           CASE WHEN i.delay_ms IS NOT NULL THEN now.t + i.delay_ms * interval '1 millisecond'
                ELSE delayq_ts(i.run_at_ms) END,
           i.max_attempts, now.t, i.fingerprint, i.timeout_ms, i.broadcast, i.callback::jsonb, i.backoff::jsonb,
           i.payload, i.traceparent, i.tracestate, i.on_dead::jsonb, delayq_ts(i.expires_at_ms)
    FROM input i, now
    ON CONFLICT (topic, id) DO NOTHING
    RETURNING topic, id, push, run_at, created_at
),
counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, scheduled)
    SELECT topic, pg_backend_pid() % 16, count(*) FROM created GROUP BY topic ORDER BY topic
    ON CONFLICT (topic, shard) DO UPDATE SET scheduled = c.scheduled + excluded.scheduled
),
woken AS (
    SELECT pg_notify('delayq_wake', l.topic || E'\n' || CASE WHEN l.push THEN 'PUSH' ELSE 'PULL' END || E'\n'
                                    || delayq_ms(l.first))
    FROM (SELECT topic, push, min(run_at) AS first FROM created GROUP BY topic, push) l
    WHERE l.first < coalesce((SELECT min(j.run_at) FROM delayq_jobs j
                              WHERE j.topic = l.topic AND j.push = l.push AND j.state = 'scheduled'), 'infinity')
)
-- woken is selected so that it runs: an unreferenced SELECT in WITH is never executed
SELECT c.topic, c.id, delayq_ms(c.run_at) AS run_at, now.ms AS created_at, w.n AS woken
FROM created c
CROSS JOIN now
CROSS JOIN (SELECT count(*) AS n FROM woken) w
