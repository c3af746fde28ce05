-- topic_delete: forgets a topic without scheduled or leased jobs (issue 26, finding 12): its row, and with it its
-- settings and idle mark, goes, and the record of the callback origins its jobs used (V21, topic_origins.sql).
-- Locks the row first, so that a concurrent settings write waits and then finds no row (and inserts a new one). Its
-- finished jobs and counters stay while the store keeps them; an enqueue into it later registers it again
-- (KnownTopics re-registers a topic it knows at least once a minute).
-- "No jobs" is the SUM over the topic's counter shards, as in stats.sql: a job enqueued through one connection and
-- cancelled through another leaves +1 on one shard and -1 on another, and such a topic is empty.
-- Binds: :topic.
-- Returns the topic when it was forgotten, no row when it has jobs or was not registered.
WITH forgotten AS (
    DELETE FROM delayq_topics t
    WHERE t.topic = :topic
      AND (SELECT coalesce(sum(c.scheduled), 0) = 0 AND coalesce(sum(c.leased), 0) = 0
           FROM delayq_counters c WHERE c.topic = :topic)
    RETURNING t.topic
),
origins AS (
    DELETE FROM delayq_topic_origins o USING forgotten f WHERE o.topic = f.topic
)
SELECT topic FROM forgotten
