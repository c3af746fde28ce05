-- reap_audit: drops up to :batch audit entries whose expire_at (at + the retention they were written with) is before
-- :nowMs, or the database's now when :nowMs is null; soonest first (index delayq_audit_expire), as reap_operations.
-- Binds: :nowMs, :batch. Returns the number of rows dropped.
WITH now AS MATERIALIZED (SELECT coalesce(delayq_ts(:nowMs::bigint), delayq_now()) AS t)
DELETE FROM delayq_audit a
USING (SELECT id
       FROM delayq_audit
       WHERE expire_at < (SELECT t FROM now)
       ORDER BY expire_at
       LIMIT :batch
       FOR UPDATE SKIP LOCKED) AS old
WHERE a.id = old.id
