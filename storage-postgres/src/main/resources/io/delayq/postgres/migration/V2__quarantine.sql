-- V2: a quarantine for what this version of the store cannot read (issue 12).
--
-- An outbox row the store's code cannot decode (a callback or backoff JSON of a shape it does not know, written by
-- another version or by hand) used to fail every read of the outbox, and so stopped archiving for every topic. The
-- archiver now moves such a row here, whole, with the reason (JobStore.quarantineOutbox), and archives the others;
-- storage-postgres/README.md shows how an operator moves a repaired row back.
--
-- Only a new table: instances still running the previous version's statements during a rolling upgrade are not
-- affected (a new column on delayq_jobs would break their positional INSERT INTO delayq_outbox SELECT j.*).
CREATE TABLE delayq_quarantine (
    seq            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    quarantined_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    origin         text        NOT NULL, -- where it was found: 'outbox'
    topic          text        NOT NULL,
    id             text        NOT NULL,
    reason         text        NOT NULL, -- why it could not be read
    entry          jsonb       NOT NULL  -- the row as it was: to_jsonb of the delayq_outbox row, its seq included
);
