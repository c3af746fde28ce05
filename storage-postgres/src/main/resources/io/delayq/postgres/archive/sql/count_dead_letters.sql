-- count_dead_letters: how many live dead letters match the filter (a bulk action's dry run), read through the index the
-- same filter's listing uses (DeadLetterFilter without a cursor).
-- Binds: those of DeadLetterFilter's conditions.
SELECT count(*)
FROM delayq_dead_letters
WHERE purged_at IS NULL <filter>
