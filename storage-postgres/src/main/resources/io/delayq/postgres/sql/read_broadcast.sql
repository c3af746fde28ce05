-- read_broadcast: the job of a broadcast whose seq a listener was notified of (publish_broadcast.sql).
-- Binds: :seq.
-- Returns one row, or none when it was trimmed already (a listener that far behind has missed it).
SELECT job FROM delayq_broadcasts WHERE seq = :seq
