-- V14: forgetting unused topics (issue 26, finding 12). A topic without scheduled or leased jobs and without settings
-- is marked idle by the first sweep that sees it so (topic_mark_idle.sql), loses the mark when it has jobs or settings
-- again, and is forgotten (its row deleted, topic_delete.sql) once marked for a week. Only a new nullable column: the
-- statements of the previous version keep working during a rolling upgrade.
ALTER TABLE delayq_topics
    ADD COLUMN idle_since timestamptz; -- when it was first seen without jobs and settings; NULL while it has either
