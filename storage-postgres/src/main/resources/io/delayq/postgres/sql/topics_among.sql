-- topics_among: which of the names asked are registered topics (JobStore#topicsAmong: a tenant's exact-name patterns,
-- read together). The Redis twin is one SMISMEMBER of dq:topics.
-- Binds: :topics.
-- Returns the names that are topics, in no order.
SELECT topic FROM delayq_topics WHERE topic = ANY(:topics)
