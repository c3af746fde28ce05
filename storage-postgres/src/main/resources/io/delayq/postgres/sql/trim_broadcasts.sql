-- trim_broadcasts: drops up to :batch broadcast rows older than five minutes, oldest first. Every instance reads a
-- broadcast within milliseconds of its NOTIFY; five minutes is slack for slow listeners.
-- Binds: :batch. Returns the number of rows dropped.
DELETE FROM delayq_broadcasts WHERE seq IN (
    SELECT seq FROM delayq_broadcasts
    WHERE sent_at < delayq_now() - interval '5 minutes'
    ORDER BY seq LIMIT :batch
)
