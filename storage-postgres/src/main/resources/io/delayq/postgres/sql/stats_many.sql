-- stats_many: the counters of several topics, each summed over its shards, and each one's earliest run time of either
-- lane (JobStore.stats(Collection): a tenant's pending jobs are the sum over its topics): what stats.sql answers for
-- each, in one round trip whatever the number of topics. A topic without counters (it never had a job) has no row;
-- the caller answers it with zeros.
-- Binds: :topics.
-- Returns one row per topic with counters: topic, scheduled, leased, succeeded, dead, next_run_at (epoch ms, null when
-- nothing is scheduled).
SELECT c.topic, c.scheduled, c.leased, c.succeeded, c.dead,
       delayq_ms(least(
           (SELECT min(run_at) FROM delayq_jobs WHERE topic = c.topic AND push AND state = 'scheduled'),
           (SELECT min(run_at) FROM delayq_jobs WHERE topic = c.topic AND NOT push AND state = 'scheduled')))
           AS next_run_at
FROM (
    SELECT topic, sum(scheduled) AS scheduled, sum(leased) AS leased, sum(succeeded) AS succeeded, sum(dead) AS dead
    FROM delayq_counters
    WHERE topic = ANY(:topics)
    GROUP BY topic
) c
