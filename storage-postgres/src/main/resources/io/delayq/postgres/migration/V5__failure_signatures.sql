-- V5: what the operators' dashboard filters and groups dead letters by (JobArchive.failureGroups, the host, status,
-- group, id-prefix and payload filters of DeadLetterQuery). storage-postgres/README.md says which statement uses
-- which index.
--
-- A letter's failure signature (FailureSignature.of(job): the error's kind, its text with numbers, ids and times
-- normalised away, the callback host, and a digest of the three) is computed in Java when the letter is written, and
-- kept in columns so that grouping is a GROUP BY and each filter an index range. The normalisation is Java's regular
-- expressions; PostgreSQL's differ in details (word boundaries, lookahead), so letters archived before this version are
-- not signed here but by the archive at start-up (PostgresJobArchive.signUnsignedDeadLetters), in batches of
-- delayq_dead_letters_unsigned, and by every reaper pass after that (an instance of an older version may still write
-- some during a rolling upgrade). Until then such a letter is in no group and matched by no host, status or group
-- filter.

ALTER TABLE delayq_dead_letters
    ADD COLUMN signature_id      text COLLATE "C", -- FailureSignature.id: 12 hex digits
    ADD COLUMN signature_kind    text,             -- "HTTP 503", "timeout", "connect", "lease expired", "error"
    ADD COLUMN signature_message text,             -- the last error, normalised (at most 300 characters)
    ADD COLUMN signature_host    text COLLATE "C", -- the callback's host[:port], or the lane
    ADD COLUMN http_status       integer;          -- the last attempt's HTTP status; NULL: it got no HTTP answer

-- A tombstone keeps none of them (a purge clears them with the rest of the letter).
ALTER TABLE delayq_dead_letters ADD CONSTRAINT tombstone_has_no_signature CHECK (
    purged_at IS NULL OR num_nonnulls(signature_id, signature_kind, signature_message, signature_host, http_status) = 0);

-- Each filter leads an index in the listing's order, as V3's do, so that a filtered page is an index range of
-- limit + 1 entries, a count reads only the matching entries, and the group filter serves each group's example.
CREATE INDEX delayq_dead_letters_signature ON delayq_dead_letters (signature_id, dead_at DESC, key DESC)
    WHERE purged_at IS NULL;
CREATE INDEX delayq_dead_letters_host ON delayq_dead_letters (signature_host, dead_at DESC, key DESC)
    WHERE purged_at IS NULL;
CREATE INDEX delayq_dead_letters_status ON delayq_dead_letters (http_status, dead_at DESC, key DESC)
    WHERE purged_at IS NULL;
-- An id prefix over every topic: a range of ids (the column is "C", so a prefix is a contiguous range); within one
-- topic delayq_dead_letters_job (topic, id, ...) serves.
CREATE INDEX delayq_dead_letters_id ON delayq_dead_letters (id)
    WHERE purged_at IS NULL;
-- The letters still to be signed: empty once the archive has started on this version, so finding none is one probe.
CREATE INDEX delayq_dead_letters_unsigned ON delayq_dead_letters (key)
    WHERE purged_at IS NULL AND signature_id IS NULL;
