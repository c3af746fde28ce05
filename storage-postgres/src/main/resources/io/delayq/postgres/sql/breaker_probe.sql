-- breaker_probe: claims an open circuit's next probe once it is due, and moves the next one a whole interval on, so
-- that a probe that hangs does not let another through at once. Exactly one of concurrent callers wins: the others wait
-- for the row lock and then re-check the condition on the winner's version (READ COMMITTED), whose next_probe_at is
-- now in their future.
-- Binds: :origin.
-- Returns one row (true) to the caller that claimed the probe, none otherwise (closed, no row, or not due yet).
WITH now AS MATERIALIZED (SELECT delayq_now() AS t)
UPDATE delayq_circuits c
SET next_probe_at = now.t + c.probe_interval_ms * interval '1 millisecond',
    updated_at = now.t
FROM now
WHERE c.origin = :origin AND c.state = 'open' AND c.next_probe_at <= now.t
RETURNING true AS claimed
