-- topic_mark_idle: the forgetting of unused topics (issue 26, finding 12): a topic without scheduled or leased jobs and
-- without settings keeps (or gets, now) its idle mark; any other loses it. "Without jobs" is the sum over the counter
-- shards (see topic_delete.sql).
-- Binds: :topic, :idleMs.
-- Returns one row when the topic is registered: whether it has been idle for :idleMs.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t)
UPDATE delayq_topics t
SET idle_since = CASE
        WHEN (t.settings IS NULL OR t.settings = '{}'::jsonb)
             AND (SELECT coalesce(sum(c.scheduled), 0) = 0 AND coalesce(sum(c.leased), 0) = 0
                  FROM delayq_counters c WHERE c.topic = :topic)
        THEN coalesce(t.idle_since, now.t)
    END
FROM now
WHERE t.topic = :topic
RETURNING t.idle_since IS NOT NULL AND t.idle_since <= now.t - :idleMs::bigint * interval '1 millisecond' AS due
