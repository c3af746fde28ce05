-- schedule_put: creates or replaces a recurring schedule (twin of schedule_put.lua). The cursor becomes the database's
-- clock (a PUT replaces the schedule: its fires start after it); the creation time and the fires are kept.
-- Binds: :topic, :name, :definition, :dueAtMs (null: none). Returns the row as stored.
INSERT INTO delayq_schedules AS s (topic, name, definition, cursor_ms, due_at_ms, created_at_ms, updated_at_ms)
SELECT :topic, :name, :definition, n.ms, :dueAtMs::bigint, n.ms, n.ms
FROM (SELECT delayq_ms(delayq_now()) AS ms) n
ON CONFLICT (topic, name) DO UPDATE
    SET definition = excluded.definition, cursor_ms = excluded.cursor_ms, due_at_ms = excluded.due_at_ms,
        updated_at_ms = excluded.updated_at_ms
RETURNING s.topic, s.name, s.definition, s.cursor_ms, s.due_at_ms, s.created_at_ms, s.updated_at_ms, s.fires
