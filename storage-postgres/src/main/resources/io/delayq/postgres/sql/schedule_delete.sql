-- schedule_delete: deletes a schedule (twin of schedule_delete.lua); its jobs stay. Binds: :topic, :name.
-- Returns how many rows were deleted (0 or 1).
WITH gone AS (DELETE FROM delayq_schedules WHERE topic = :topic AND name = :name RETURNING 1)
SELECT count(*) FROM gone
