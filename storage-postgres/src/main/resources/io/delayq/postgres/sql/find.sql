-- find: one job by its primary key.
-- Binds: :topic, :id.
-- Returns its row, or none.
SELECT * FROM delayq_jobs WHERE topic = :topic AND id = :id
