-- topics: every topic that ever had a job or settings.
-- Returns one row per topic.
SELECT topic FROM delayq_topics
