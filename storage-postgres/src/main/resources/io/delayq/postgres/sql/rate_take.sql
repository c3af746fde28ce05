-- rate_take: takes up to :wanted permits from one token bucket (RateLimiters.take; mirrors rate_take.lua), by the
-- database's clock in µs (clock_timestamp(), not delayq_now()'s ms: a bucket of a million permits a second refills one
-- a µs). The bucket is refilled for the time since its last take at :perSecond, never beyond :burst (so a smaller
-- burst cuts a fuller bucket down at once), then as many whole permits as it holds, up to :wanted, are taken. A
-- missing row is a full bucket. One statement: concurrent takes of a bucket queue on its row lock, and each refills
-- from the row as the one before it left it (ON CONFLICT DO UPDATE reads the locked row, never the snapshot).
-- forget_at (when the bucket is full again, rounded up to a whole minute; capped at ~100 years) lets the reaper drop
-- idle rows. The table is UNLOGGED (V15): no WAL, no flush to wait for.
-- Binds: :key, :perSecond, :burst, :wanted.
-- Returns one row: granted; retry_after_ms, when fewer were granted than wanted the ms until the next whole permit,
-- else 0.
WITH now AS MATERIALIZED (SELECT clock_timestamp() AS t)
INSERT INTO delayq_rate_buckets AS b (key, tokens, at, last_granted, forget_at)
SELECT :key, :burst - f.granted, now.t, f.granted,
       to_timestamp(ceil((extract(epoch FROM now.t) + least(f.granted / :perSecond, 3153600000)) / 60) * 60)
FROM now, (SELECT least(:wanted, :burst) AS granted) f
ON CONFLICT (key) DO UPDATE SET (tokens, at, last_granted, forget_at) = (
    SELECT r.tokens - g.granted, r.at, g.granted,
           to_timestamp(ceil((extract(epoch FROM r.at)
                              + least((:burst - r.tokens + g.granted) / :perSecond, 3153600000)) / 60) * 60)
    FROM (
        -- refilled since the last take; a clock that went back (a failover) refills nothing, and the last take stays
        SELECT least(:burst::float8,
                     b.tokens + greatest(extract(epoch FROM excluded.at - b.at)::float8, 0) * :perSecond) AS tokens,
               greatest(b.at, excluded.at) AS at
    ) r,
    LATERAL (SELECT least(:wanted, floor(r.tokens)::int) AS granted) g
)
RETURNING b.last_granted AS granted,
          CASE WHEN b.last_granted < :wanted
               THEN greatest(1, ceil((1 - b.tokens) * 1000 / :perSecond))::bigint ELSE 0 END AS retry_after_ms
