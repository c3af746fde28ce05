-- times_many: what next_due_at.sql (both lanes) and next_lease_deadline.sql answer for each of several topics, in one
-- round trip (JobStore.times: the engine's sweeps read every topic each round). Each is the first entry of an index,
-- as there; a topic without jobs answers nulls.
-- Binds: :topics.
-- Returns one row per topic asked: topic, push_due_at, pull_due_at, lease_deadline (epoch ms, null for none).
SELECT t.topic,
       delayq_ms((SELECT min(run_at) FROM delayq_jobs
                  WHERE topic = t.topic AND push AND state = 'scheduled')) AS push_due_at,
       delayq_ms((SELECT min(run_at) FROM delayq_jobs
                  WHERE topic = t.topic AND NOT push AND state = 'scheduled')) AS pull_due_at,
       delayq_ms((SELECT min(lease_deadline) FROM delayq_jobs
                  WHERE topic = t.topic AND state = 'leased')) AS lease_deadline
FROM unnest(:topics::text[]) AS t(topic)
