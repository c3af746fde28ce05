-- topics_page: one page of the registered topics in name order (the primary key), after :after (null: from the first).
-- Binds: :after, :limit.
-- Returns at most :limit topics.
SELECT topic FROM delayq_topics WHERE :after::text IS NULL OR topic > :after ORDER BY topic LIMIT :limit
