-- V1: the job store. storage-postgres/README.md says which statement uses which table and index.
--
-- Times are timestamptz truncated to the millisecond (the SPI speaks epoch ms), read from clock_timestamp() once per
-- statement through delayq_now(): never the JVM's clock, and never now(), which is frozen at the start of a
-- transaction.

CREATE TYPE delayq_job_state AS ENUM ('scheduled', 'leased', 'succeeded', 'dead', 'cancelled');

CREATE FUNCTION delayq_now() RETURNS timestamptz
    LANGUAGE sql VOLATILE AS $$ SELECT date_trunc('milliseconds', clock_timestamp()) $$;

CREATE FUNCTION delayq_ms(t timestamptz) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT floor(extract(epoch FROM t) * 1000)::bigint $$;

-- Integer arithmetic, so that every epoch ms maps to exactly that ms (to_timestamp(double) may round).
CREATE FUNCTION delayq_ts(ms bigint) RETURNS timestamptz
    LANGUAGE sql STABLE STRICT AS $$ SELECT timestamptz 'epoch' + ms * interval '1 millisecond' $$;

-- A lease token: random, so that a consumer cannot guess the next one of a job it once held.
CREATE FUNCTION delayq_token() RETURNS bigint
    LANGUAGE sql VOLATILE AS $$ SELECT 1 + floor(random() * 9007199254740990)::bigint $$;

-- Appends one attempt to a job's history and keeps the last `cap` entries (lib/record.lua's add_history).
CREATE FUNCTION delayq_history(history jsonb, entry jsonb, cap integer) RETURNS jsonb
    LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE
            WHEN jsonb_array_length(history) < cap THEN history || jsonb_build_array(jsonb_strip_nulls(entry))
            ELSE (SELECT coalesce(jsonb_agg(e ORDER BY n), '[]'::jsonb)
                  FROM jsonb_array_elements(history || jsonb_build_array(jsonb_strip_nulls(entry)))
                       WITH ORDINALITY AS a(e, n)
                  WHERE n > jsonb_array_length(history) + 1 - cap)
        END
    $$;

-- Every job from enqueue until the reaper drops its finished row (finishedRetention after it finished).
CREATE TABLE delayq_jobs (
    topic          text             NOT NULL,
    id             text             NOT NULL,
    -- state and lane first: what an operator filters on in psql
    state          delayq_job_state NOT NULL,
    push           boolean          NOT NULL, -- the lane: true = the delivery engine, false = pulling consumers
    run_at         timestamptz      NOT NULL,
    attempts       integer          NOT NULL DEFAULT 0, -- attempts started, the current one included while leased
    max_attempts   integer          NOT NULL,
    lease_token    bigint,
    lease_deadline timestamptz,
    created_at     timestamptz      NOT NULL,
    finished_at    timestamptz,
    fingerprint    text             NOT NULL, -- NewJob.fingerprint(): same id + same fingerprint = idempotent repeat
    timeout_ms     bigint,
    broadcast      boolean          NOT NULL DEFAULT false,
    callback       jsonb,
    backoff        jsonb,
    last_error     text,
    history        jsonb            NOT NULL DEFAULT '[]', -- the last historySize attempts, oldest first
    payload        text             NOT NULL, -- the producer's JSON as it came: never parsed, delivered byte for byte
    PRIMARY KEY (topic, id),
    CONSTRAINT leased_iff_lease CHECK ((state = 'leased') = (lease_token IS NOT NULL AND lease_deadline IS NOT NULL)),
    CONSTRAINT finished_iff_finished_at
        CHECK ((state IN ('succeeded', 'dead', 'cancelled')) = (finished_at IS NOT NULL))
);

-- The hot indexes hold only the rows they serve: a job leaves them the moment it changes state, so finished rows
-- never slow down "next due" or "leases past deadline", however many of them wait for the reaper.
CREATE INDEX delayq_jobs_due ON delayq_jobs (topic, push, run_at) WHERE state = 'scheduled';
CREATE INDEX delayq_jobs_lease_deadline ON delayq_jobs (topic, lease_deadline) WHERE state = 'leased';
CREATE INDEX delayq_jobs_finished ON delayq_jobs (finished_at) WHERE finished_at IS NOT NULL;

-- Every transition rewrites a row (no HOT update: state is in the partial indexes' predicates), so the table
-- produces dead tuples at the rate jobs move. Vacuum it after 1 % of changes rather than PostgreSQL's 20 %, so that
-- its size follows the live jobs instead of the busiest hour.
ALTER TABLE delayq_jobs SET (
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_insert_scale_factor = 0.01,
    autovacuum_analyze_scale_factor = 0.02
);

-- Finished jobs waiting for the archive, written in the transaction of their final transition. The columns are the
-- job's (LIKE), then seq: statements insert `SELECT <returned job row>.*` positionally.
CREATE TABLE delayq_outbox (
    LIKE delayq_jobs INCLUDING DEFAULTS,
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY
);

-- Counters for topic stats, never COUNT(*) over jobs. A topic's counts are spread over 16 rows (shard =
-- backend pid % 16) so that concurrent statements of one topic rarely wait for each other's counter row.
CREATE TABLE delayq_counters (
    topic     text     NOT NULL,
    shard     smallint NOT NULL,
    scheduled bigint   NOT NULL DEFAULT 0,
    leased    bigint   NOT NULL DEFAULT 0,
    succeeded bigint   NOT NULL DEFAULT 0,
    dead      bigint   NOT NULL DEFAULT 0,
    PRIMARY KEY (topic, shard)
);

-- Every topic that has had a job or settings, and its settings (TopicSettings as JSON).
CREATE TABLE delayq_topics (
    topic      text        PRIMARY KEY,
    settings   jsonb,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Broadcast jobs, referenced by NOTIFY delayq_broadcast '<seq>' (a NOTIFY carries at most 8000 bytes; a job may carry
-- 64 KiB). Listeners read the row; the reaper drops rows after a few minutes.
CREATE TABLE delayq_broadcasts (
    seq     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sent_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    job     text        NOT NULL -- the Job as JSON
);
