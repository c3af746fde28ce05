-- schedule_due: schedules of any topic due at or before :nowMs, earliest first, at most :limit (delayq_schedules_due).
SELECT topic, name, definition, cursor_ms, due_at_ms, created_at_ms, updated_at_ms, fires
FROM delayq_schedules
WHERE due_at_ms IS NOT NULL AND due_at_ms <= :nowMs
ORDER BY due_at_ms
LIMIT :limit
