-- enqueue_copy_close: the last statement of an enqueue by COPY (CopyEnqueue), before its commit: the counters of the
-- jobs the COPY created, and the wake-ups.
-- Binds: :topics and :counts (arrays: jobs created per topic, topics sorted so that concurrent batches lock counter
-- rows in one order), :wakes (array: one NOTIFY payload 'topic\nLANE\nms' per lane whose earliest run time moved
-- earlier, decided from enqueue_copy_open's answer).
-- Returns how many wake-ups were sent.
WITH counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, scheduled)
    SELECT t.topic, pg_backend_pid() % 16, t.n FROM unnest(:topics::text[], :counts::bigint[]) AS t(topic, n)
    ORDER BY t.topic
    ON CONFLICT (topic, shard) DO UPDATE SET scheduled = c.scheduled + excluded.scheduled
)
SELECT count(pg_notify('delayq_wake', w)) AS woken FROM unnest(:wakes::text[]) AS w
