-- V19: expiry and the causes of dead letters (issue 29).
--
-- delayq_jobs.expires_at: NewJob.expiresAtMs(), the job's own expiry; NULL for a job that names none (its topic's
-- expiresAfter, if any, applies from its run time) and for every job written before this version. reserve.sql makes a
-- due job whose expiry passed DEAD (cause EXPIRED) instead of leasing it.
-- delayq_jobs.dead_cause: DeadCause's name for a dead job (ATTEMPTS_EXHAUSTED, EXPIRED, NO_RETRY, NO_CALLBACK,
-- LEASE_EXPIRED, UNREADABLE); NULL for every other state and for jobs that died before this version (read as
-- ATTEMPTS_EXHAUSTED, the only way to die then but for the rare unreadable row).
--
-- The outbox takes job rows positionally (INSERT INTO delayq_outbox SELECT <returned job row>.*), so it is rebuilt
-- with the new columns before seq, exactly as V8 and V9 did and for the same reasons (every row keeps its seq, the
-- identity continues after every seq handed out, Flyway runs this in one transaction).

ALTER TABLE delayq_jobs
    ADD COLUMN expires_at timestamptz, -- not delivered by then: DEAD with cause EXPIRED
    ADD COLUMN dead_cause text;        -- DeadCause name, set when the job becomes DEAD

CREATE TEMPORARY TABLE delayq_outbox_v18_next AS
SELECT greatest((SELECT max(seq) FROM delayq_outbox),
                pg_sequence_last_value(pg_get_serial_sequence('delayq_outbox', 'seq')),
                (SELECT max((entry ->> 'seq')::bigint) FROM delayq_quarantine WHERE origin = 'outbox'),
                0) + 1 AS next_seq;

CREATE TEMPORARY TABLE delayq_outbox_v18 AS SELECT * FROM delayq_outbox;
DROP TABLE delayq_outbox;

CREATE TABLE delayq_outbox (
    LIKE delayq_jobs INCLUDING DEFAULTS,
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY
);

INSERT INTO delayq_outbox OVERRIDING SYSTEM VALUE
SELECT r.* FROM delayq_outbox_v18 o, jsonb_populate_record(NULL::delayq_outbox, to_jsonb(o)) r
ORDER BY o.seq;

SELECT setval(pg_get_serial_sequence('delayq_outbox', 'seq'), (SELECT next_seq FROM delayq_outbox_v18_next), false);

DROP TABLE delayq_outbox_v18;
DROP TABLE delayq_outbox_v18_next;

-- The dead-letter listing's cause filter (DeadLetterFilter: coalesce(job ->> 'cause', 'ATTEMPTS_EXHAUSTED') = :cause),
-- in the listing's order, so a page of one cause is a range of this index. The cause is the archived job's own field
-- (new Job fields need no column); a letter archived before this version has none and counts as ATTEMPTS_EXHAUSTED.
CREATE INDEX delayq_dead_letters_cause
    ON delayq_dead_letters ((coalesce(job ->> 'cause', 'ATTEMPTS_EXHAUSTED')), dead_at DESC, key DESC)
    WHERE purged_at IS NULL;
