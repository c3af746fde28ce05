-- breaker_failure: a failed attempt to an origin (a connection failure, a timeout or a 5xx). Closed: counted, and the
-- circuit opens at :threshold failures in a row, its first probe due :probeIntervalMs later. Open (a probe failed):
-- the wait doubles, capped at :maxProbeIntervalMs, and the next probe is due after it; opened_at stays that of the
-- opening. One statement on one row, so that failures counted by many instances at once are each counted.
-- An origin without a row gets one only while fewer than :maxOrigins rows exist (issue 26, finding 5): beyond, it is not
-- tracked (no row is written, none returned). The count runs only for an origin without a row, and takes no lock:
-- concurrent failures of new origins may pass the bound by a few.
-- Binds: :origin, :threshold, :probeIntervalMs, :maxProbeIntervalMs, :maxOrigins.
-- Returns the circuit's row after the failure, or none when the origin is not tracked.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
-- an origin without a row is closed with no failures: this one is its first
fresh AS (
    SELECT CASE WHEN 1 >= :threshold THEN :probeIntervalMs::bigint END AS interval_ms
)
INSERT INTO delayq_circuits AS c (origin, state, failures, opened_at, next_probe_at, probe_interval_ms, updated_at)
SELECT :origin, CASE WHEN f.interval_ms IS NULL THEN 'closed' ELSE 'open' END::delayq_circuit_state, 1,
       CASE WHEN f.interval_ms IS NOT NULL THEN now.t END,
       now.t + f.interval_ms * interval '1 millisecond', f.interval_ms, now.t
FROM now, fresh f
WHERE EXISTS (SELECT 1 FROM delayq_circuits WHERE origin = :origin)
   OR (SELECT count(*) FROM delayq_circuits) < :maxOrigins
-- The existing row, locked: every value is computed from the latest committed version, never from this statement's
-- snapshot, so concurrent failures add up. The sub-select computes the new wait once for the columns that use it.
ON CONFLICT (origin) DO UPDATE
SET (failures, state, opened_at, probe_interval_ms, next_probe_at, updated_at) = (
    SELECT c.failures + 1,
           CASE WHEN n.interval_ms IS NULL THEN 'closed' ELSE 'open' END::delayq_circuit_state,
           CASE WHEN c.state = 'closed' AND n.interval_ms IS NOT NULL THEN excluded.updated_at ELSE c.opened_at END,
           n.interval_ms,
           excluded.updated_at + n.interval_ms * interval '1 millisecond',
           excluded.updated_at
    FROM (SELECT CASE WHEN c.state = 'open'
                      -- doubled, capped; compared with half the cap so that the doubling cannot overflow
                      THEN CASE WHEN c.probe_interval_ms > :maxProbeIntervalMs::bigint / 2
                                THEN :maxProbeIntervalMs::bigint ELSE c.probe_interval_ms * 2 END
                      WHEN c.failures + 1 >= :threshold THEN :probeIntervalMs::bigint
                 END AS interval_ms) n
)
RETURNING c.*
