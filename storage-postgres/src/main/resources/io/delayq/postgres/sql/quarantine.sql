-- quarantine: moves outbox entries, whole, to delayq_quarantine (V2) with a reason each, in one statement (mirrors
-- quarantine.lua), so that entries the archiver cannot read stop coming back in every read of the outbox.
-- Binds: :seqs, :reasons (arrays, one element per entry).
-- Returns the number of entries moved (an entry gone already is skipped).
WITH moved AS (
    DELETE FROM delayq_outbox o
    USING unnest(:seqs::bigint[], :reasons::text[]) AS r(seq, reason)
    WHERE o.seq = r.seq
    RETURNING o.topic, o.id, r.reason, to_jsonb(o) AS entry
)
INSERT INTO delayq_quarantine (origin, topic, id, reason, entry)
SELECT 'outbox', topic, id, reason, entry FROM moved
