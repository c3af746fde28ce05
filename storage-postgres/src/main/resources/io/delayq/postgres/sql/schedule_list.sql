-- schedule_list: a topic's schedules in name order after :afterName ('' from the first), at most :limit: a keyset page
-- of the primary key. Binds: :topic, :afterName, :limit.
SELECT topic, name, definition, cursor_ms, due_at_ms, created_at_ms, updated_at_ms, fires
FROM delayq_schedules
WHERE topic = :topic AND name > :afterName
ORDER BY name
LIMIT :limit
