-- next_lease_deadline: the earliest deadline of a topic's leases: the first entry of its lease index.
-- Binds: :topic.
-- Returns epoch ms, or null when nothing is leased.
SELECT delayq_ms(min(lease_deadline)) FROM delayq_jobs WHERE topic = :topic AND state = 'leased'
