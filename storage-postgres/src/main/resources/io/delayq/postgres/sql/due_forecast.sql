-- due_forecast: how many scheduled jobs of a topic, both lanes, fall due in each bucket of the window
-- [:fromMs, :toMs), buckets of :bucketMs. One range scan of the due index per lane, bounded by the window (the index
-- leads with (topic, push), so each lane is its own range); the cost follows the jobs in the window, not the topic.
-- Binds: :topic, :fromMs, :toMs, :bucketMs. Returns (bucket, jobs) for the buckets that have jobs, 0-based.
WITH due AS (
    SELECT run_at FROM delayq_jobs
    WHERE topic = :topic AND push AND state = 'scheduled'
      AND run_at >= delayq_ts(:fromMs) AND run_at < delayq_ts(:toMs)
    UNION ALL
    SELECT run_at FROM delayq_jobs
    WHERE topic = :topic AND NOT push AND state = 'scheduled'
      AND run_at >= delayq_ts(:fromMs) AND run_at < delayq_ts(:toMs)
)
SELECT ((delayq_ms(run_at) - :fromMs) / :bucketMs)::integer AS bucket, count(*) AS jobs
FROM due
GROUP BY 1
