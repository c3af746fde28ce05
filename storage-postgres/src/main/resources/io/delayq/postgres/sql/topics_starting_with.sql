-- topics_starting_with: one page of the registered topics whose name starts with :prefix, in byte order ("C"), after
-- :after ('' from the first), at most :limit (JobStore#topicsStartingWith: a tenant's topics, by its patterns). A range
-- of V22's delayq_topics_by_name from the prefix to :upper, the least string of the prefix's length after every string
-- starting with it (TopicScope.successor): the range holds exactly the topics starting with the prefix, and no
-- character of it means anything but itself (as '_' would in LIKE). The Redis twin is a ZRANGE … BYLEX of dq:topics'
-- index by name.
-- Binds: :prefix, :upper, :after, :limit.
-- Returns at most :limit topics.
SELECT topic FROM delayq_topics
WHERE topic COLLATE "C" >= :prefix AND topic COLLATE "C" < :upper AND topic COLLATE "C" > :after
ORDER BY topic COLLATE "C"
LIMIT :limit
