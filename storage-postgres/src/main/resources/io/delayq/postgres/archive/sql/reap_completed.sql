-- reap_completed: drops up to :batch completed jobs whose expire_at (finished_at + the completedRetention they were
-- written with) is before :nowMs, or the database's now when :nowMs is null; soonest first (index
-- delayq_completed_jobs_expire). SKIP LOCKED: instances reap side by side without waiting for each other.
-- The time is read once, in a CTE, so that it is a bound of the index range (delayq_now() is volatile: compared
-- row by row it would be a filter over every entry of the index).
-- Binds: :nowMs, :batch. Returns the number of rows dropped.
WITH now AS MATERIALIZED (SELECT coalesce(delayq_ts(:nowMs::bigint), delayq_now()) AS t)
DELETE FROM delayq_completed_jobs c
USING (SELECT key
       FROM delayq_completed_jobs
       WHERE expire_at < (SELECT t FROM now)
       ORDER BY expire_at
       LIMIT :batch
       FOR UPDATE SKIP LOCKED) AS old
WHERE c.key = old.key
