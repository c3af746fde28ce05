-- breaker_circuits_page: one page of circuits in origin order (the primary key), after :after (null: from the first).
-- Binds: :after, :limit.
-- Returns at most :limit rows, by origin.
SELECT * FROM delayq_circuits WHERE :after::text IS NULL OR origin > :after ORDER BY origin LIMIT :limit
