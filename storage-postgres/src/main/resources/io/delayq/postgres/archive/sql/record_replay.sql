-- record_replay: appends a replay to a live dead letter, only if its replay count is still :expected (a compare and
-- set: of two operators replaying at once, one records). Never matches a tombstone.
-- Binds: :key, :expected, :replay (one replay as JSON).
-- Returns the number of rows changed: 1 recorded, 0 not.
UPDATE delayq_dead_letters
SET replay_count = replay_count + 1,
    replays = replays || jsonb_build_array(:replay::jsonb)
WHERE key = :key AND purged_at IS NULL AND replay_count = :expected
