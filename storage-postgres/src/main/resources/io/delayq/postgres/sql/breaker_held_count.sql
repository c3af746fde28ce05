-- breaker_held_count: the last statement of a change to an origin's held jobs: writes the circuit's held count as the
-- size of its set (this transaction sees its own changes, and the row lock of breaker_held_lock keeps others out). An
-- origin without a row gets one (closed) only when jobs are held for it.
-- Binds: :origin.
-- Returns nothing.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
n AS (SELECT count(*) AS held FROM delayq_circuit_held WHERE origin = :origin)
INSERT INTO delayq_circuits AS c (origin, held, updated_at)
SELECT :origin, n.held, now.t FROM now, n
WHERE n.held > 0 OR EXISTS (SELECT 1 FROM delayq_circuits WHERE origin = :origin)
ON CONFLICT (origin) DO UPDATE
SET held = excluded.held,
    updated_at = excluded.updated_at
