-- add_history: adds one call's counts to the per-topic minutes, creating the minutes that are new. Concurrent calls
-- from several instances add up: ON CONFLICT DO UPDATE adds to the row as it is when the lock is taken.
-- Binds: :topics, :minutes (epoch ms), :enqueued, :delivered, :failed, :dead, :expired, :noRetry (one element per
-- minute, no topic and minute twice, sorted by topic and minute so that concurrent calls lock rows in one order),
-- :lateness (every minute's :buckets counts one after the other).
INSERT INTO delayq_topic_history AS h (topic, minute, enqueued, delivered, failed, dead, expired, no_retry, lateness)
SELECT r.topic, delayq_ts(r.minute), r.enqueued, r.delivered, r.failed, r.dead, r.expired, r.no_retry,
       (:lateness::bigint[])[((r.n - 1) * :buckets + 1)::integer : (r.n * :buckets)::integer]
FROM unnest(:topics::text[], :minutes::bigint[], :enqueued::bigint[], :delivered::bigint[], :failed::bigint[],
            :dead::bigint[], :expired::bigint[], :noRetry::bigint[])
     WITH ORDINALITY AS r(topic, minute, enqueued, delivered, failed, dead, expired, no_retry, n)
ORDER BY r.n
ON CONFLICT (topic, minute) DO UPDATE SET
    enqueued = h.enqueued + excluded.enqueued,
    delivered = h.delivered + excluded.delivered,
    failed = h.failed + excluded.failed,
    dead = h.dead + excluded.dead,
    expired = h.expired + excluded.expired,
    no_retry = h.no_retry + excluded.no_retry,
    lateness = delayq_add_counts(h.lateness, excluded.lateness)
