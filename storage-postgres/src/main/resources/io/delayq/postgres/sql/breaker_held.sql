-- breaker_held: adds :delta (negative: jobs released) to the jobs held for an origin, never below 0 (a release counted
-- twice, by instances that both saw the job held, must not leave a negative count behind).
-- Binds: :origin, :delta.
-- Returns nothing.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t)
INSERT INTO delayq_circuits AS c (origin, held, updated_at)
SELECT :origin, greatest(:delta::bigint, 0), now.t FROM now
ON CONFLICT (origin) DO UPDATE
SET held = greatest(c.held + :delta::bigint, 0),
    updated_at = excluded.updated_at
