-- breaker_held_jobs: some of the jobs held for an origin, longest held first (delayq_circuit_held_oldest).
-- Binds: :origin, :limit.
-- Returns topic, job_id.
SELECT topic, job_id FROM delayq_circuit_held WHERE origin = :origin ORDER BY held_at, topic, job_id LIMIT :limit
