-- V7: the per-topic, per-minute history of the dashboard (JobStore.addHistory / history): counts that every service
-- instance adds to, kept 7 days (TopicMinute.RETENTION_MS) and then dropped by the store's reaper in bounded batches.
-- Only a new table and a function: statements of earlier versions are unaffected during a rolling upgrade.

-- Element-wise sum of two count arrays (lateness histograms); the shorter is read as padded with zeros, so a minute
-- written by a version with fewer buckets still adds up.
CREATE FUNCTION delayq_add_counts(a bigint[], b bigint[]) RETURNS bigint[]
    LANGUAGE sql IMMUTABLE AS $$
        SELECT coalesce(array_agg(coalesce(x, 0) + coalesce(y, 0) ORDER BY n), '{}')
        FROM unnest(a, b) WITH ORDINALITY AS u(x, y, n)
    $$;

CREATE TABLE delayq_topic_history (
    topic     text        NOT NULL,
    minute    timestamptz NOT NULL, -- the minute's start
    enqueued  bigint      NOT NULL DEFAULT 0,
    delivered bigint      NOT NULL DEFAULT 0,
    failed    bigint      NOT NULL DEFAULT 0,
    dead      bigint      NOT NULL DEFAULT 0,
    lateness  bigint[]    NOT NULL, -- deliveries per LatenessBuckets bucket
    PRIMARY KEY (topic, minute)
);

-- The reaper's: minutes past the retention, oldest first, whatever the topic.
CREATE INDEX delayq_topic_history_minute ON delayq_topic_history (minute);
