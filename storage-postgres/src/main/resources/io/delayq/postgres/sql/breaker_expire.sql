-- breaker_expire: forgets up to :max closed circuits whose last change is older than :idleMs (issue 26, finding 5),
-- oldest first (V13's partial index delayq_circuits_idle), with their held jobs: a held job not tried again for that
-- long is not coming back to this origin. Open circuits are never forgotten. Rows another instance is sweeping are
-- skipped (SKIP LOCKED), so concurrent sweeps forget each circuit once and never wait for each other.
-- Binds: :idleMs, :max.
-- Returns one row: how many circuits were forgotten.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
idle AS (
    SELECT c.origin FROM delayq_circuits c
    WHERE c.state = 'closed' AND c.updated_at < (SELECT t FROM now) - :idleMs::bigint * interval '1 millisecond'
    ORDER BY c.updated_at
    LIMIT :max
    FOR UPDATE SKIP LOCKED
),
forgotten AS (
    DELETE FROM delayq_circuits c USING idle WHERE c.origin = idle.origin RETURNING c.origin
),
held AS (
    DELETE FROM delayq_circuit_held h USING forgotten f WHERE h.origin = f.origin
)
SELECT count(*) FROM forgotten
