-- breaker_notable: the circuits that are open or have jobs held, by origin (V13's partial index
-- delayq_circuits_notable): what each instance's snapshot reads every 2 s, whatever the number of closed circuits.
-- Binds: :limit.
-- Returns at most :limit rows, by origin.
SELECT * FROM delayq_circuits WHERE state = 'open' OR held > 0 ORDER BY origin LIMIT :limit
