-- delete_outbox: drops outbox entries the archiver wrote (an entry gone already is skipped).
-- Binds: :seqs (array).
-- Returns the number of rows dropped.
DELETE FROM delayq_outbox WHERE seq = ANY(:seqs::bigint[])
