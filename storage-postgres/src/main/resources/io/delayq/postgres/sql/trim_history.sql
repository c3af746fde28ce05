-- trim_history: drops up to :batch minutes of the topic history whose start is more than :retentionMs ago, oldest
-- first, SKIP LOCKED (instances reap side by side; a minute an instance is adding to right now waits for the next
-- pass). The cut-off is computed once, so that it bounds the scan of the minute index (see trim.sql).
-- Binds: :retentionMs, :batch. Returns the number of minutes dropped.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
old AS (
    SELECT h.topic, h.minute
    FROM delayq_topic_history h
    WHERE h.minute < (SELECT t FROM now) - :retentionMs * interval '1 millisecond'
    ORDER BY h.minute
    LIMIT :batch
    FOR UPDATE SKIP LOCKED
),
dropped AS (
    DELETE FROM delayq_topic_history h USING old WHERE h.topic = old.topic AND h.minute = old.minute RETURNING 1
)
SELECT count(*) FROM dropped
