-- breaker_held_by_topic: the jobs held for an origin by topic (CircuitBreakers.heldByTopic; Redis keeps the same counts
-- beside the held set, written by breaker_held.lua): what a tenant's token is shown of an origin other tenants' jobs
-- use too. Read from the set itself, so always exact; the primary key (origin, topic, job_id) serves it in topic order.
-- Binds: :origin.
-- Returns topic, held: one row per topic with jobs held.
SELECT topic, count(*) AS held FROM delayq_circuit_held WHERE origin = :origin GROUP BY topic ORDER BY topic
