-- reserve: leases up to :max due jobs of one topic and lane, earliest run time first (mirrors reserve.lua; River's
-- JobGetAvailable is the model). Each lease lasts the job's timeout_ms or :defaultLeaseMs and has a fresh token;
-- attempts + 1. A due job whose expiry passed (its expires_at, else its run time + :expiresAfterMs when that is > 0)
-- is not leased: it is DEAD with cause EXPIRED, into the outbox, in this statement (expired, below).
-- Binds: :topic, :push, :max, :defaultLeaseMs, :expiresAfterMs (the topic's expiresAfter, 0: none); :tokens, :max lease tokens of 16 bytes one after the other (bytea),
-- drawn by the caller from a CSPRNG (PostgreSQL's random() is not one): the n-th row locked gets the n-th.
-- Commits asynchronously (synchronous_commit off for this statement only): a lease is the one state a crash may
-- forget, and forgetting it is safe — the job is SCHEDULED again, as before the reserve, and is handed out again
-- (at least once), while the holder's ack is refused as stale. Not waiting for the WAL flush is what keeps a
-- reserve, and so delivery, within milliseconds of the due time. Every other transition commits durably, and its
-- flush also makes durable every lease written before it.
-- Returns one row per lease (the leased job's columns), each with now_ms (the database's clock) and next_ms (the
-- earliest run time still scheduled in the lane, or null); when nothing was leased, one row of nulls but now_ms and
-- next_ms, and expired_n (the jobs this statement made dead instead). Both times are converted to ms once, in their materialized CTEs (a plain subquery in FROM is pulled up, and its
-- expression evaluated again for every row of the result).
WITH now AS MATERIALIZED (SELECT t, delayq_ms(t) AS ms FROM (SELECT delayq_now() AS t) c),
async AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true) AS v),
due AS MATERIALIZED (
    -- ctid: the UPDATE below fetches each locked row where the lock found it (a TID scan). A locked row cannot move;
    -- a row that a concurrent transaction changed between this statement's snapshot and the lock is not visible at
    -- its new ctid to the UPDATE, so it is not leased this time (it stays scheduled and is reported as next)
    SELECT j.ctid AS tid,
           coalesce(j.expires_at, CASE WHEN :expiresAfterMs > 0
                                       THEN j.run_at + :expiresAfterMs * interval '1 millisecond' END)
               < (SELECT t FROM now) AS expired
    FROM delayq_jobs j
    WHERE j.topic = :topic AND j.push = :push AND j.state = 'scheduled' AND j.run_at <= (SELECT t FROM now)
    ORDER BY j.run_at
    LIMIT :max
    FOR UPDATE SKIP LOCKED
),
tokens AS MATERIALIZED (
    -- each locked row's TID beside its token. From unnest(ARRAY(...)), not from due itself nor from an unnest of the
    -- bound tokens: the UPDATE joins this on ctid, and a join with a side estimated at hundreds of rows (due, whose
    -- LIMIT is :max; an array bind, whose length the planner sees) was planned as a hash join over a sequential scan
    -- of the whole table once the table was large (a reserve of 1,000 among 100,000 jobs: 29 ms against 9 ms). An
    -- array made by a subquery is estimated at a few rows whatever its length and the table's size, so the UPDATE is a
    -- nested loop of TID scans, one heap fetch per locked row. A token is sliced out of the one bytea bind, O(1) per
    -- row (an element of a bytea[] is found by walking the elements before it).
    SELECT d.tid, encode(substring(:tokens::bytea FROM 16 * d.n::integer - 15 FOR 16), 'hex')::uuid AS token
    FROM unnest(ARRAY(SELECT due.tid FROM due WHERE due.expired IS NOT TRUE)) WITH ORDINALITY AS d(tid, n)
),
expired AS (
    -- not delivered by its expiry: dead now, no attempt made or used
    UPDATE delayq_jobs j
    SET state = 'dead',
        finished_at = now.t,
        dead_cause = 'EXPIRED',
        last_error = 'expired: not delivered by its expiry ('
                     || delayq_ms(coalesce(j.expires_at, j.run_at + :expiresAfterMs * interval '1 millisecond'))
                     || ' ms since the epoch)'
    FROM now, (SELECT ARRAY(SELECT due.tid FROM due WHERE due.expired) AS tids) e
    WHERE j.ctid = ANY (e.tids)
    RETURNING j.*
),
archived AS (
    INSERT INTO delayq_outbox SELECT x.* FROM expired x
),
leased AS (
    UPDATE delayq_jobs j
    SET state = 'leased',
        attempts = j.attempts + 1,
        lease_token = t.token,
        lease_deadline = now.t + coalesce(j.timeout_ms, :defaultLeaseMs) * interval '1 millisecond'
    FROM now, tokens t
    WHERE j.ctid = t.tid
    RETURNING j.*
),
counted AS (
    INSERT INTO delayq_counters AS c (topic, shard, scheduled, leased, dead)
    SELECT :topic, pg_backend_pid() % 16, -(l.n + x.n), l.n, x.n
    FROM (SELECT count(*) AS n FROM leased) l, (SELECT count(*) AS n FROM expired) x
    WHERE l.n + x.n > 0
    ON CONFLICT (topic, shard) DO UPDATE SET scheduled = c.scheduled + excluded.scheduled,
                                             leased = c.leased + excluded.leased,
                                             dead = c.dead + excluded.dead
),
next AS MATERIALIZED (
    -- rows this statement leased still look scheduled in its snapshot: skip them (at most :max index entries)
    SELECT delayq_ms((SELECT j.run_at FROM delayq_jobs j
                      WHERE j.topic = :topic AND j.push = :push AND j.state = 'scheduled'
                        -- NOT IN over the CTE becomes one hashed lookup per row; NOT EXISTS was planned as a nested
                        -- loop over the batch for every row scanned (quadratic in :max)
                        AND j.id NOT IN (SELECT leased.id FROM leased UNION ALL SELECT expired.id FROM expired)
                      ORDER BY j.run_at LIMIT 1)) AS ms
)
SELECT l.*, now.ms AS now_ms, next.ms AS next_ms, async.v AS commit_mode,
       (SELECT count(*) FROM expired) AS expired_n
FROM now CROSS JOIN next CROSS JOIN async LEFT JOIN leased l ON true
ORDER BY l.run_at, l.id
