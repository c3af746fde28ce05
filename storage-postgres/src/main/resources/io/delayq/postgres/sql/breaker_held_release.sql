-- breaker_held_release: jobs no longer held for an origin (attempted again, or no longer scheduled) leave its set; a
-- job not in it changes nothing.
-- Binds: :origin, :topics and :ids (arrays of one length: the jobs' refs).
-- Returns nothing.
DELETE FROM delayq_circuit_held h
USING unnest(:topics::text[], :ids::text[]) AS t (topic, job_id)
WHERE h.origin = :origin AND h.topic = t.topic AND h.job_id = t.job_id
