-- V13: bounded, truthful circuits (issue 26, findings 5 and 7). Only a new table and new indexes: statements of
-- earlier versions keep working during a rolling upgrade (their addHeld still writes delayq_circuits.held, which the
-- next change of the held set rewrites from the set).

-- The jobs held for each callback origin: delayq_circuits.held is the number of this table's rows of the origin,
-- written in the same transaction as each change to them (breaker_held_*.sql, under the circuit row's lock), so a job
-- counts once however often it is held, and a release counted twice, or of a job never held, changes nothing.
CREATE TABLE delayq_circuit_held (
    origin  text        NOT NULL,
    topic   text        NOT NULL,
    job_id  text        NOT NULL,
    held_at timestamptz NOT NULL, -- when first held: the longest held are checked first
    PRIMARY KEY (origin, topic, job_id)
);
CREATE INDEX delayq_circuit_held_oldest ON delayq_circuit_held (origin, held_at);

-- The sweep of idle closed circuits (breaker_expire.sql) reads the oldest closed rows first. A row's rewrite changes
-- updated_at, so it is no longer a HOT update: the price of deleting idle rows without reading every row.
CREATE INDEX delayq_circuits_idle ON delayq_circuits (updated_at) WHERE state = 'closed';

-- What the per-instance snapshot reads every 2 s (breaker_notable.sql): the open circuits and those with jobs held,
-- a few among the (at most delivery.breaker.maxOrigins) rows.
CREATE INDEX delayq_circuits_notable ON delayq_circuits (origin) WHERE state = 'open' OR held > 0;
