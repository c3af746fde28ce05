-- breaker_success: a successful attempt to an origin: its failures are reset, and an open circuit closes (closed_at
-- set, no more probes). The held count stays: the delivery engine releases held jobs at its own rate.
-- Only a row with something to reset is written, so that successes to a healthy origin (the engine's view of the
-- circuits may lag) neither wait for its row lock nor leave a dead row version behind; the row is read instead.
-- Binds: :origin.
-- Returns the circuit's row after the success, or no row for an origin that has none (closed, no failures).
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
reset AS (
    UPDATE delayq_circuits c
    SET state = 'closed',
        failures = 0,
        closed_at = CASE WHEN c.state = 'open' THEN now.t ELSE c.closed_at END,
        next_probe_at = NULL,
        probe_interval_ms = NULL,
        updated_at = now.t
    FROM now
    WHERE c.origin = :origin AND (c.state = 'open' OR c.failures > 0)
    RETURNING c.*
)
SELECT * FROM reset
UNION ALL
SELECT * FROM delayq_circuits WHERE origin = :origin AND NOT EXISTS (SELECT 1 FROM reset)
