-- reap_tombstones: drops up to :batch tombstones whose expire_at (purged_at + the tombstoneRetention they were purged
-- with) is before :nowMs, or the database's now when :nowMs is null; soonest first (index
-- delayq_dead_letters_tombstones). After that, an entry still in some outbox would archive its letter again: the
-- retention must outlive any outage of the store that keeps archived entries in its outbox.
-- The time is read once, in a CTE, so that it is a bound of the index range (delayq_now() is volatile: compared
-- row by row it would be a filter over every entry of the index).
-- Binds: :nowMs, :batch. Returns the number of rows dropped.
WITH now AS MATERIALIZED (SELECT coalesce(delayq_ts(:nowMs::bigint), delayq_now()) AS t)
DELETE FROM delayq_dead_letters d
USING (SELECT key
       FROM delayq_dead_letters
       WHERE purged_at IS NOT NULL AND expire_at < (SELECT t FROM now)
       ORDER BY expire_at
       LIMIT :batch
       FOR UPDATE SKIP LOCKED) AS old
WHERE d.key = old.key AND d.purged_at IS NOT NULL
