-- V9: delivery protections (issue 16) in the store: a job's own dead-notice target, and the circuits of callback
-- origins that every instance shares.
--
-- delayq_jobs.on_dead: NewJob.onDead() as JSON ({url, headers}), NULL for a job that names none (its topic's target
-- applies) and for every job written before this version. The outbox takes job rows positionally (INSERT INTO
-- delayq_outbox SELECT <returned job row>.*), so it is rebuilt with the new column before seq, exactly as V8 did and
-- for the same reasons: every row keeps its seq (an archiver that read entries before the rebuild still deletes the
-- right ones), and Flyway runs this in one transaction, so no statement sees a half-built outbox. Statements of the
-- previous version keep working afterwards: their SELECT j.* returns on_dead too, where the rebuilt outbox expects it.

ALTER TABLE delayq_jobs
    ADD COLUMN on_dead jsonb; -- Callback {url, headers}: where a notice goes when the job becomes DEAD

-- The identity continues after every seq ever handed out, not only after the highest still in the outbox: an empty
-- outbox would otherwise start again at 1, and an entry an operator moves back from the quarantine under its own seq
-- (README, Quarantine) could then collide with a new one.
CREATE TEMPORARY TABLE delayq_outbox_v8_next AS
SELECT greatest((SELECT max(seq) FROM delayq_outbox),
                pg_sequence_last_value(pg_get_serial_sequence('delayq_outbox', 'seq')),
                (SELECT max((entry ->> 'seq')::bigint) FROM delayq_quarantine WHERE origin = 'outbox'),
                0) + 1 AS next_seq;

CREATE TEMPORARY TABLE delayq_outbox_v8 AS SELECT * FROM delayq_outbox;
DROP TABLE delayq_outbox;

CREATE TABLE delayq_outbox (
    LIKE delayq_jobs INCLUDING DEFAULTS,
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY
);

INSERT INTO delayq_outbox OVERRIDING SYSTEM VALUE
SELECT r.* FROM delayq_outbox_v8 o, jsonb_populate_record(NULL::delayq_outbox, to_jsonb(o)) r
ORDER BY o.seq;

SELECT setval(pg_get_serial_sequence('delayq_outbox', 'seq'), (SELECT next_seq FROM delayq_outbox_v8_next), false);

DROP TABLE delayq_outbox_v8;
DROP TABLE delayq_outbox_v8_next;

-- The circuit of each callback origin (CircuitBreakers): one row per origin that ever had a failed attempt, written
-- by one statement per call (JobTransitions' style, CircuitStatements/*.sql), every time by delayq_now(). Instances
-- never talk to each other about circuits: the row is the agreement.
CREATE TYPE delayq_circuit_state AS ENUM ('closed', 'open');

CREATE TABLE delayq_circuits (
    origin            text                 PRIMARY KEY, -- scheme://host:port, lower-case (Origins.of)
    state             delayq_circuit_state NOT NULL DEFAULT 'closed',
    failures          integer              NOT NULL DEFAULT 0, -- failed attempts in a row, reset by a success
    opened_at         timestamptz, -- when it last opened; NULL if it never did
    closed_at         timestamptz, -- when it last closed after being open; NULL if it never did
    next_probe_at     timestamptz, -- while open: when the next probe may be claimed
    probe_interval_ms bigint,      -- while open: the current wait between probes (doubling after each failed one)
    held              bigint               NOT NULL DEFAULT 0, -- jobs held for the origin and not yet tried again
    updated_at        timestamptz          NOT NULL, -- the last change of any kind, for an operator in psql
    CONSTRAINT open_iff_probe CHECK ((state = 'open') = (next_probe_at IS NOT NULL AND probe_interval_ms IS NOT NULL)),
    CONSTRAINT held_not_negative CHECK (held >= 0)
) WITH (
    -- A failing origin's row is rewritten by every failed attempt, hold and release. No index covers a column that
    -- changes, so with room left on the page each rewrite is a HOT update: no index entry, pruned without a vacuum.
    fillfactor = 50
);
