-- reap_operations: drops up to :batch bulk operations whose expire_at (last change + the retention they were written
-- with) is before :nowMs, or the database's now when :nowMs is null; soonest first (index delayq_operations_expire).
-- SKIP LOCKED: instances reap side by side without waiting for each other. The time is read once, in a CTE, so
-- that it bounds the index range (see reap_completed.sql).
-- Binds: :nowMs, :batch. Returns the number of rows dropped.
WITH now AS MATERIALIZED (SELECT coalesce(delayq_ts(:nowMs::bigint), delayq_now()) AS t)
DELETE FROM delayq_operations o
USING (SELECT id
       FROM delayq_operations
       WHERE expire_at < (SELECT t FROM now)
       ORDER BY expire_at
       LIMIT :batch
       FOR UPDATE SKIP LOCKED) AS old
WHERE o.id = old.id
