-- breaker_circuit: one origin's circuit, by the primary key.
-- Binds: :origin.
-- Returns its row, or none for an origin that never failed.
SELECT * FROM delayq_circuits WHERE origin = :origin
