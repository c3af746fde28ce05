-- V11: dead notices (issue 16) in the archive: where the notice of a job's death to its onDead target stands
-- (DeadLetter.notice(), a DeadNotice), kept in the dead letter's row. storage-postgres/README.md says which statement
-- uses which index.
--
-- The target itself is in the job column (Job.onDead(), the job's own or its topic's as the archiver resolved it),
-- which needs no migration. The notice is the archive's own, like the replays: write.sql sets it when it inserts a
-- letter whose job has a target (PENDING, no attempts, due at its death) and never on a rewrite, so a notice already
-- sent, or being sent, is not made pending again; after that only recordNotice.sql changes it, a compare and set on
-- notice_attempts. Letters written before this version, and letters of jobs without a target, have no notice (every
-- notice column NULL); a purge clears it with the rest of the letter.

ALTER TABLE delayq_dead_letters
    -- DeadNotice.State's names, as text with a CHECK (a later state is a new CHECK, not an ALTER TYPE)
    ADD COLUMN notice_state           text,
    ADD COLUMN notice_attempts        integer,     -- sending attempts made, the one in progress included
    ADD COLUMN notice_next_attempt_at timestamptz, -- when a pending notice may be claimed next (a claim's lapse)
    ADD COLUMN notice_delivered_at    timestamptz, -- when the target answered 2xx
    ADD COLUMN notice_last_error      text,        -- the last attempt's failure
    ADD COLUMN notice_last_status     integer;     -- the HTTP status of the last failed attempt that got an answer

-- A notice is whole or absent, and a tombstone has none (so no tombstone is ever due).
ALTER TABLE delayq_dead_letters ADD CONSTRAINT notice_whole_or_absent CHECK (CASE
    WHEN notice_state IS NULL THEN num_nonnulls(notice_attempts, notice_next_attempt_at, notice_delivered_at,
                                                notice_last_error, notice_last_status) = 0
    ELSE notice_state IN ('PENDING', 'DELIVERED', 'FAILED') AND notice_attempts >= 0
         AND notice_next_attempt_at IS NOT NULL AND purged_at IS NULL END);

-- The notice sender's (dueNotices.sql): pending notices by when they are due, the key breaking ties. Partial, so it
-- holds only the notices still to send: a delivered or failed notice leaves it, and finding the due ones costs what is
-- pending, not every letter that ever had a notice.
CREATE INDEX delayq_dead_letters_notices_due ON delayq_dead_letters (notice_next_attempt_at, key)
    WHERE notice_state = 'PENDING';
