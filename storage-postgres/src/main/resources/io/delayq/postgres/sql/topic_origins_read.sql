-- topic_origins_read: the callback origins each of :topics' jobs were recorded with (topic_origins.sql) and used
-- within :retentionMs before :now (CircuitBreakers.originsOf), through the primary key (topic, origin): at most
-- :max and a few rows per topic.
-- Binds: :topics, :now (epoch ms), :retentionMs.
-- Returns topic, origin: one row per origin of a topic, in topic and origin order.
SELECT o.topic, o.origin
FROM delayq_topic_origins o
WHERE o.topic = ANY(:topics::text[]) AND o.last_used >= delayq_ts(:now - :retentionMs)
ORDER BY o.topic, o.origin
