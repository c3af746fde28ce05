-- V8: the producer's W3C trace context (TraceContext), stored with its job and carried to every delivery: two nullable
-- columns, absent (NULL) for jobs enqueued without one and for every job written before this version.
--
-- The outbox is filled positionally (INSERT INTO delayq_outbox SELECT <returned job row>.*, see V1), so it must keep
-- the job's columns first and seq last. ADD COLUMN on the outbox would put the new columns after seq, and a job row
-- (now two columns longer) would then write a traceparent into seq. So the outbox is rebuilt in the new column order,
-- every row kept under its own seq (an archiver that read entries before the rebuild still deletes the right ones),
-- the identity continuing after the highest seq. The outbox is small (finished jobs waiting for the archiver), and
-- Flyway runs this in one transaction: statements of other instances wait for it, none sees a half-built outbox.
-- Statements of the previous version keep working afterwards: their SELECT j.* now returns the new columns too, in
-- the order the rebuilt outbox expects.

ALTER TABLE delayq_jobs
    ADD COLUMN traceparent text, -- 00-<trace id>-<parent id>-<flags>, validated by the service
    ADD COLUMN tracestate  text;

CREATE TEMPORARY TABLE delayq_outbox_v7 AS SELECT * FROM delayq_outbox;
DROP TABLE delayq_outbox;

CREATE TABLE delayq_outbox (
    LIKE delayq_jobs INCLUDING DEFAULTS,
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY
);

INSERT INTO delayq_outbox OVERRIDING SYSTEM VALUE
SELECT r.* FROM delayq_outbox_v7 o, jsonb_populate_record(NULL::delayq_outbox, to_jsonb(o)) r
ORDER BY o.seq;

SELECT setval(pg_get_serial_sequence('delayq_outbox', 'seq'),
              (SELECT coalesce(max(seq), 0) + 1 FROM delayq_outbox), false);

DROP TABLE delayq_outbox_v7;
