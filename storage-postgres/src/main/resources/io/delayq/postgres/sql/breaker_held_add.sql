-- breaker_held_add: jobs held for an origin join its set; a job held already keeps its first time.
-- Binds: :origin, :topics and :ids (arrays of one length: the jobs' refs).
-- Returns nothing.
INSERT INTO delayq_circuit_held (origin, topic, job_id, held_at)
SELECT :origin, t.topic, t.job_id, delayq_now()
FROM unnest(:topics::text[], :ids::text[]) AS t (topic, job_id)
ON CONFLICT DO NOTHING
