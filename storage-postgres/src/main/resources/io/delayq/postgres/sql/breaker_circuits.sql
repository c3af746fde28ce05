-- breaker_circuits: every origin's circuit, in the primary key's order. One row per origin that ever failed: a few,
-- not one per job.
-- Returns every row, by origin.
SELECT * FROM delayq_circuits ORDER BY origin
