-- stats: a topic's counters summed over their shards, and the earliest run time of either lane: one round trip.
-- Binds: :topic.
-- Returns one row: scheduled, leased, succeeded, dead, next_run_at (epoch ms, null when nothing is scheduled).
SELECT coalesce(sum(scheduled), 0) AS scheduled, coalesce(sum(leased), 0) AS leased,
       coalesce(sum(succeeded), 0) AS succeeded, coalesce(sum(dead), 0) AS dead,
       delayq_ms(least(
           (SELECT min(run_at) FROM delayq_jobs WHERE topic = :topic AND push AND state = 'scheduled'),
           (SELECT min(run_at) FROM delayq_jobs WHERE topic = :topic AND NOT push AND state = 'scheduled')))
           AS next_run_at
FROM delayq_counters WHERE topic = :topic
