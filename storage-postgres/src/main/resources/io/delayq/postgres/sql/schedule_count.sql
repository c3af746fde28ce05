-- schedule_count: how many schedules each topic holds, for every topic that holds any (ScheduleStore.counts: a
-- tenant's schedules count against its pending-jobs quota; the caller keeps the tenant's topics). One round trip; rows
-- as many as topics with schedules, which people make. The Redis twin is plain reads (SMEMBERS of the topics with
-- schedules, HLEN of each one asked).
-- Returns: topic, schedules.
SELECT topic, count(*) AS schedules FROM delayq_schedules GROUP BY topic
