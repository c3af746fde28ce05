-- V22: a tenant's topics and schedules read by its patterns' prefixes (JobStore#topicsStartingWith,
-- ScheduleStore#counts; topics_starting_with.sql, schedule_count.sql): each a range of the name in byte order, from the
-- prefix to the next string of its length, so that the cost of the read is the tenant's page, not every topic. The
-- statements compare with COLLATE "C" (byte order of UTF-8, code point order: the same in every database, and what
-- Redis's index by name and the archive's "C" topic columns use), which the primary keys, in the database's default
-- collation, serve only where that is "C" too. Indexes only, on tables of one row per topic and per schedule: each
-- build holds a write lock on its table for milliseconds, and the statements of the previous version do not read them
-- (a rolling upgrade is fine).
CREATE INDEX delayq_topics_by_name ON delayq_topics (topic COLLATE "C");
CREATE INDEX delayq_schedules_by_topic ON delayq_schedules (topic COLLATE "C");
