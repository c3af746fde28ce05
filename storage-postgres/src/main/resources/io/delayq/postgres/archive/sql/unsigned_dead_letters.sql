-- unsigned_dead_letters: up to :batch live dead letters without a failure signature (archived before V5, or by an
-- older instance), by key after :after (index delayq_dead_letters_unsigned, empty once all are signed). The archive
-- computes their signature in Java and writes it with sign.
-- Binds: :after (the last key of the previous batch; '' for the first), :batch.
SELECT key, job::text AS job, payload
FROM delayq_dead_letters
WHERE purged_at IS NULL AND signature_id IS NULL AND key > :after
ORDER BY key
LIMIT :batch
