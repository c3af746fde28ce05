-- leases: the leases in flight of one topic, earliest deadline first, for an operator's view (mirrors leases.lua):
-- the lease index in its order, O(log N + :limit); writes nothing.
-- Binds: :topic, :limit.
-- Returns id, push, attempts, deadline_ms per lease.
SELECT id, push, attempts, delayq_ms(lease_deadline) AS deadline_ms FROM delayq_jobs
WHERE topic = :topic AND state = 'leased'
ORDER BY lease_deadline LIMIT :limit
