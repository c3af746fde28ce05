-- history: a topic's per-minute counts in [:fromMs, :toMs), oldest first: a range of the primary key.
-- Binds: :topic, :fromMs, :toMs (epoch ms).
-- Returns topic, minute_ms, enqueued, delivered, failed, dead, expired, no_retry, lateness per stored minute.
SELECT topic, delayq_ms(minute) AS minute_ms, enqueued, delivered, failed, dead, expired, no_retry, lateness
FROM delayq_topic_history
WHERE topic = :topic AND minute >= delayq_ts(:fromMs) AND minute < delayq_ts(:toMs)
ORDER BY minute
