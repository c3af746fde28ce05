-- schedule_get: one schedule. Binds: :topic, :name.
SELECT topic, name, definition, cursor_ms, due_at_ms, created_at_ms, updated_at_ms, fires
FROM delayq_schedules
WHERE topic = :topic AND name = :name
