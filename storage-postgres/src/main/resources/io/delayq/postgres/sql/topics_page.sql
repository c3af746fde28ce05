-- topics_page: one page of the registered topics in name order, after :after (null: from the first). Name order is
-- byte order (COLLATE "C", V22's delayq_topics_by_name): code point order, whatever the database's default collation,
-- so an operator's pages come in the order of a tenant's (topics_starting_with.sql) and of Redis's index by name.
-- Binds: :after, :limit.
-- Returns at most :limit topics.
SELECT topic FROM delayq_topics
WHERE :after::text IS NULL OR topic COLLATE "C" > :after
ORDER BY topic COLLATE "C"
LIMIT :limit
