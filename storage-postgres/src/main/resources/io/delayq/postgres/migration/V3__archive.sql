-- V3: the archive (archive: {type: postgres}): dead letters, and the succeeded jobs of topics that keep them
-- (archiveSucceeded). storage-postgres/README.md says which statement uses which table and index.
--
-- In the store's location and schema history (delayq_schema_history): store and archive on one database apply each
-- version once, in one order, whichever starts first; an archive alone (store on Redis) gets V1 and V2's tables too,
-- empty. Times come from the store (deadAt, finishedAt: the job's finishedAt) or from delayq_now() (purgedAt), and are
-- kept at millisecond precision, as in V1. A retention is decided when a row is written (expire_at), as the MongoDB
-- archive's TTL fields are: changing it applies to rows written afterwards, and instances configured differently
-- never drop each other's rows early.

-- A payload as jsonb for payload-field filters, or NULL when PostgreSQL cannot hold it as jsonb (a \u0000 escape, a
-- number beyond numeric's range): such a dead letter is archived all the same, only not found by payload filters.
-- The exception block costs a subtransaction without an xid (it writes nothing), so it never overflows the
-- subtransaction cache.
CREATE FUNCTION delayq_payload_doc(payload text) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    RETURN payload::jsonb;
EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
    RETURN NULL;
END
$$;

-- One row per death of a job (a job id accepted again after the store forgot it, and dying again, is a second row),
-- or, once purged, its tombstone: the key, purged_at and expire_at, nothing else (a purge removes the payload). The
-- tombstone is the same row, so that the archiver's upsert and a purge meet on one row lock: a late write of a purged
-- letter finds the tombstone and leaves it (see write.sql), in whatever order they run.
CREATE TABLE delayq_dead_letters (
    -- DeadLetter.key: topic/id/createdAt. "C": ordered by code point, as Java compares strings (the listing's
    -- tie-break), whatever the database's collation
    key          text COLLATE "C" PRIMARY KEY,
    purged_at    timestamptz, -- set: a tombstone
    expire_at    timestamptz, -- a tombstone's: purged_at + tombstoneRetention, when the reaper drops it
    topic        text COLLATE "C",
    id           text COLLATE "C",
    dead_at      timestamptz, -- the job's finishedAt, by the store's clock
    replay_count integer,
    replayed     boolean GENERATED ALWAYS AS (replay_count > 0) STORED, -- the listing's "replayed" filter
    replays      jsonb,       -- [{number, at, newJobId, requestKey?}], oldest first; the archive's, not the outbox's
    job          jsonb,       -- the Job's JSON form without its payload: callback and its headers, backoff, attempts,
                              -- lastError, history (open shapes, and new Job fields need no migration)
    payload      text,        -- the producer's JSON as it came: never parsed, handed back byte for byte
    payload_doc  jsonb,       -- delayq_payload_doc(payload): the payload parsed, for payload-field filters
    CONSTRAINT live_or_tombstone CHECK (CASE
        WHEN purged_at IS NULL THEN num_nulls(topic, id, dead_at, replay_count, replays, job, payload) = 0
                                    AND expire_at IS NULL
        ELSE expire_at IS NOT NULL
             AND num_nonnulls(topic, id, dead_at, replay_count, replays, job, payload, payload_doc) = 0 END)
);

-- Listings are newest first by (dead_at, key) and continue below a cursor's (dead_at, key): every filter the listing
-- offers (topic, dead_at range, replayed, and their combinations) has an index whose order is the listing's, so a
-- page is an index range scan of limit + 1 entries, however many letters there are. Partial: tombstones are in none.
CREATE INDEX delayq_dead_letters_listing ON delayq_dead_letters (dead_at DESC, key DESC)
    WHERE purged_at IS NULL;
CREATE INDEX delayq_dead_letters_topic ON delayq_dead_letters (topic, dead_at DESC, key DESC)
    WHERE purged_at IS NULL;
CREATE INDEX delayq_dead_letters_replayed ON delayq_dead_letters (replayed, dead_at DESC, key DESC)
    WHERE purged_at IS NULL;
CREATE INDEX delayq_dead_letters_topic_replayed ON delayq_dead_letters (topic, replayed, dead_at DESC, key DESC)
    WHERE purged_at IS NULL;
-- The letters of one job id, newest first: "the dead letter of a job", find, purge of a job.
CREATE INDEX delayq_dead_letters_job ON delayq_dead_letters (topic, id, dead_at DESC, key DESC)
    WHERE purged_at IS NULL;
-- Payload-field filters (payload_doc @> '{"orderId": 42}'): jsonb_path_ops is smaller and faster than the default
-- jsonb_ops for containment, which is the only operator such a filter needs.
CREATE INDEX delayq_dead_letters_payload ON delayq_dead_letters USING gin (payload_doc jsonb_path_ops)
    WHERE purged_at IS NULL;
-- The reaper's: tombstones past their retention, soonest first.
CREATE INDEX delayq_dead_letters_tombstones ON delayq_dead_letters (expire_at)
    WHERE purged_at IS NOT NULL;

-- Other finished jobs the store hands over (SUCCEEDED, of topics with archiveSucceeded): answered by find once the
-- store has forgotten them, dropped by the reaper at expire_at (finished_at + completedRetention). Replaced whole when
-- written again.
CREATE TABLE delayq_completed_jobs (
    key         text COLLATE "C" PRIMARY KEY, -- as a dead letter's: topic/id/createdAt
    topic       text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    state       text        NOT NULL, -- JobState name
    finished_at timestamptz NOT NULL,
    expire_at   timestamptz NOT NULL,
    job         jsonb       NOT NULL, -- as in delayq_dead_letters
    payload     text        NOT NULL
);
CREATE INDEX delayq_completed_jobs_job ON delayq_completed_jobs (topic, id, finished_at DESC);
CREATE INDEX delayq_completed_jobs_expire ON delayq_completed_jobs (expire_at); -- the reaper's

-- Rows arrive at the rate jobs finish and leave in reaper batches: vacuum after 5 % of changes rather than 20 %, so
-- that the table's size follows the retention window, not its busiest day.
ALTER TABLE delayq_completed_jobs SET (
    autovacuum_vacuum_scale_factor = 0.05,
    autovacuum_vacuum_insert_scale_factor = 0.05
);
