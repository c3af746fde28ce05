-- outbox_size: how many entries wait in the outbox. Exact: the outbox is small unless the archive has been down, and
-- this is read by a gauge, not per job.
SELECT count(*) FROM delayq_outbox
