-- next_due_at: the earliest run time of a lane's scheduled jobs: the first entry of its due index, an index lookup
-- whatever the topic's size.
-- Binds: :topic, :push.
-- Returns epoch ms, or null when nothing is scheduled.
SELECT delayq_ms(min(run_at)) FROM delayq_jobs
WHERE topic = :topic AND push = :push AND state = 'scheduled'
