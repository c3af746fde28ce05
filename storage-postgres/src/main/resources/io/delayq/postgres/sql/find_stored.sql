-- find_stored: the jobs of the given (topic, id) pairs that exist, with their fingerprints: what an enqueue answers a
-- repeated or conflicting id from. One primary-key lookup per pair.
-- Binds: :topics, :ids (arrays, one element per job).
-- Returns the rows found, in no particular order.
SELECT j.* FROM delayq_jobs j JOIN unnest(:topics::text[], :ids::text[]) AS r(topic, id)
    ON j.topic = r.topic AND j.id = r.id
