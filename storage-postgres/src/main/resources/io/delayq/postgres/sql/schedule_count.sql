-- schedule_count: how many schedules each topic holds whose name starts with :prefix, for the topics that hold any, in
-- byte order ("C"), after :after ('' from the first), at most :limit topics (ScheduleStore.counts: a tenant's schedules
-- count against its pending-jobs quota; read by its patterns as its topics are, topics_starting_with.sql). A range of
-- V22's delayq_schedules_by_topic from the prefix to :upper (TopicScope.successor), grouped in index order: the rows
-- read are the schedules of the page's topics. The Redis twin: a ZRANGE … BYLEX of dq:schedule-topics' index by
-- name, then HLEN of each topic of the page.
-- Binds: :prefix, :upper, :after, :limit.
-- Returns: topic, schedules.
SELECT topic COLLATE "C" AS topic, count(*) AS schedules
FROM delayq_schedules
WHERE topic COLLATE "C" >= :prefix AND topic COLLATE "C" < :upper AND topic COLLATE "C" > :after
GROUP BY 1
ORDER BY 1
LIMIT :limit
