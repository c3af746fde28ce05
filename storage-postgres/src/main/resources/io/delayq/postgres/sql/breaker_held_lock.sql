-- breaker_held_lock: the first statement of a change to an origin's held jobs (BreakerStatements.updateHeld, one
-- transaction): locks the origin's circuit row, so that changes of one origin's held set are serialised and the count
-- written at the end (breaker_held_count) is exact. Creates no row: an origin without one gets it from
-- breaker_held_count only when jobs are held for it.
-- Binds: :origin.
-- Returns the origin when it has a row.
SELECT origin FROM delayq_circuits WHERE origin = :origin FOR UPDATE
