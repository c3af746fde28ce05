-- trim_rate_buckets: drops up to :batch token buckets that are full again (forget_at passed: a missing row is a full
-- bucket, so their next take finds what it would have found), earliest first, SKIP LOCKED (a bucket being taken from
-- right now is not idle; instances reap side by side). The cut-off is computed once, so that it bounds the scan of
-- the forget_at index: the pass reads the idle buckets, never every bucket.
-- Binds: :batch. Returns the number of buckets dropped.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
idle AS (
    SELECT b.key
    FROM delayq_rate_buckets b
    WHERE b.forget_at < (SELECT t FROM now)
    ORDER BY b.forget_at
    LIMIT :batch
    FOR UPDATE SKIP LOCKED
),
dropped AS (
    DELETE FROM delayq_rate_buckets b USING idle WHERE b.key = idle.key RETURNING 1
)
SELECT count(*) FROM dropped
