-- read_outbox: the oldest entries of the outbox, where finished jobs wait for the archiver.
-- Binds: :max.
-- Returns up to :max rows, by seq (the entry id).
SELECT * FROM delayq_outbox ORDER BY seq LIMIT :max
