-- topic_delete: forgets a topic without scheduled or leased jobs (issue 26, finding 12): its row, and with it its
-- settings and idle mark, goes. Locks the row first, so that a concurrent settings write waits and then finds no row
-- (and inserts a new one). Its finished jobs and counters stay while the store keeps them; an enqueue into it later
-- registers it again (KnownTopics re-registers a topic it knows at least once a minute).
-- Binds: :topic.
-- Returns the topic when it was forgotten, no row when it has jobs or was not registered.
DELETE FROM delayq_topics t
WHERE t.topic = :topic
  AND NOT EXISTS (SELECT 1 FROM delayq_counters c WHERE c.topic = :topic AND (c.scheduled > 0 OR c.leased > 0))
RETURNING t.topic
