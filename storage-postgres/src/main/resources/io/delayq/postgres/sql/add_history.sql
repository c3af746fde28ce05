-- add_history: adds one call's counts to the per-topic minutes, creating the minutes that are new. Concurrent calls
-- from several instances add up: ON CONFLICT DO UPDATE adds to the row as it is when the lock is taken.
-- Binds: :topics, :minutes (epoch ms), :enqueued, :delivered, :failed, :dead (one element per minute, no topic and
-- minute twice, sorted by topic and minute so that concurrent calls lock rows in one order), :lateness (every
-- minute's :buckets counts one after the other).
INSERT INTO delayq_topic_history AS h (topic, minute, enqueued, delivered, failed, dead, lateness)
SELECT r.topic, delayq_ts(r.minute), r.enqueued, r.delivered, r.failed, r.dead,
       (:lateness::bigint[])[((r.n - 1) * :buckets + 1)::integer : (r.n * :buckets)::integer]
FROM unnest(:topics::text[], :minutes::bigint[], :enqueued::bigint[], :delivered::bigint[], :failed::bigint[],
            :dead::bigint[]) WITH ORDINALITY AS r(topic, minute, enqueued, delivered, failed, dead, n)
ORDER BY r.n
ON CONFLICT (topic, minute) DO UPDATE SET
    enqueued = h.enqueued + excluded.enqueued,
    delivered = h.delivered + excluded.delivered,
    failed = h.failed + excluded.failed,
    dead = h.dead + excluded.dead,
    lateness = delayq_add_counts(h.lateness, excluded.lateness)
