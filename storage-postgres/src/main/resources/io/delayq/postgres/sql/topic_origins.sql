-- topic_origins: records that each topic's jobs were sent (or held) for these callback origins at :now
-- (CircuitBreakers.recordOrigins; mirrors topic_origins.lua). An origin's last use is raised to :now, never lowered:
-- instances write in any order, each with its own estimate of the store's clock. Then, of each topic named, the
-- origins last used more than :retentionMs before :now leave, and of the rest only the :max most recently used stay
-- (among equal uses, the greatest origins, as the ZSET's rank keeps them). One statement: the ranking is made over the
-- topics' rows as they are plus the new uses, so that the rows it deletes and the rows it writes are apart (the
-- parts of one statement all see the rows as they were before it). Two instances writing one topic at once may
-- leave it a few rows over :max until its next write.
-- Binds: :topics, :origins (one element per use), :now (epoch ms), :max, :retentionMs.
-- Returns nothing.
WITH used AS (
    SELECT DISTINCT u.topic, u.origin, delayq_ts(:now) AS last_used
    FROM unnest(:topics::text[], :origins::text[]) AS u(topic, origin)
),
ranked AS (
    SELECT m.topic, m.origin, m.last_used,
           row_number() OVER (PARTITION BY m.topic ORDER BY m.last_used DESC, m.origin DESC) AS rank
    FROM (SELECT a.topic, a.origin, max(a.last_used) AS last_used
          FROM (SELECT o.topic, o.origin, o.last_used FROM delayq_topic_origins o
                WHERE o.topic IN (SELECT topic FROM used)
                UNION ALL
                SELECT topic, origin, last_used FROM used) a
          GROUP BY a.topic, a.origin) m
),
trimmed AS (
    DELETE FROM delayq_topic_origins o USING ranked r
    WHERE o.topic = r.topic AND o.origin = r.origin
      AND (r.rank > :max OR r.last_used < delayq_ts(:now - :retentionMs))
)
INSERT INTO delayq_topic_origins AS o (topic, origin, last_used)
SELECT r.topic, r.origin, r.last_used
FROM ranked r JOIN used u ON u.topic = r.topic AND u.origin = r.origin
WHERE r.rank <= :max
ORDER BY r.topic, r.origin
ON CONFLICT (topic, origin) DO UPDATE SET last_used = greatest(o.last_used, excluded.last_used)
