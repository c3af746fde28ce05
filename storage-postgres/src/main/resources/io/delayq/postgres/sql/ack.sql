-- ack: marks attempts successful (mirrors ack.lua): SUCCEEDED, history, finished_at; into the outbox too when the
-- topic's settings say archiveSucceeded.
-- Binds (arrays, one element per lease, distinct jobs, sorted by topic and id): :topics, :ids; :tokens, the leases'
-- tokens of 16 bytes one after the other, in the same order (bytea); :historySize.
-- Returns one row per lease, in input order: status OK, STALE_LEASE (not leased, or another token: nothing changes)
-- or NOT_FOUND.
-- The clock's ms are computed once (now.ms), not once per row in the history entry.
WITH now AS MATERIALIZED (SELECT t, delayq_ms(t) AS ms FROM (SELECT delayq_now() AS t) c),
input AS (
    SELECT i.topic, i.id, encode(substring(:tokens::bytea FROM 16 * i.ord::integer - 15 FOR 16), 'hex')::uuid AS token,
           i.ord
    FROM unnest(:topics::text[], :ids::text[]) WITH ORDINALITY AS i(topic, id, ord)
),
done AS (
    UPDATE delayq_jobs j
    SET state = 'succeeded',
        lease_token = NULL,
        lease_deadline = NULL,
        finished_at = now.t,
        history = delayq_history(j.history, jsonb_build_object('number', j.attempts, 'at', now.ms), :historySize)
    FROM input i, now
    -- A token is set only while the job is leased (CHECK leased_iff_lease), so it alone says "still this lease".
    -- No state = 'leased' here on purpose: with it the planner may probe the small partial lease index once per input
    -- row and filter every lease of the topic (quadratic in the leases held); without it, each row is one primary-key
    -- probe whatever the statistics say.
    WHERE j.topic = i.topic AND j.id = i.id AND j.lease_token = i.token
    RETURNING j.*
),
archiving AS MATERIALIZED (
    -- the topics of the batch whose succeeded jobs are archived: one lookup per topic, not one per job
    SELECT b.topic FROM (SELECT DISTINCT i.topic FROM input i) b
    WHERE (SELECT (t.settings ->> 'archiveSucceeded')::boolean FROM delayq_topics t WHERE t.topic = b.topic)
),
archived AS (
    INSERT INTO delayq_outbox
    SELECT d.* FROM done d
    WHERE d.topic IN (SELECT a.topic FROM archiving a)
),
counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, leased, succeeded)
    SELECT topic, pg_backend_pid() % 16, -count(*), count(*) FROM done GROUP BY topic ORDER BY topic
    ON CONFLICT (topic, shard) DO UPDATE SET leased = c.leased + excluded.leased,
                                             succeeded = c.succeeded + excluded.succeeded
)
SELECT CASE WHEN d.id IS NOT NULL THEN 'OK'
            WHEN EXISTS (SELECT 1 FROM delayq_jobs x WHERE x.topic = i.topic AND x.id = i.id) THEN 'STALE_LEASE'
            ELSE 'NOT_FOUND' END AS status
FROM input i
LEFT JOIN done d ON d.topic = i.topic AND d.id = i.id
ORDER BY i.ord
