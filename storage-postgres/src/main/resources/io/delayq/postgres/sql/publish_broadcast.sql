-- publish_broadcast: stores a broadcast job and NOTIFYs its seq on delayq_broadcast in one statement (a NOTIFY
-- carries at most 8000 bytes, a job up to 64 KiB: listeners read it with read_broadcast.sql).
-- Binds: :job (JSON).
-- Returns the row's seq.
WITH b AS (INSERT INTO delayq_broadcasts (job) VALUES (:job) RETURNING seq)
SELECT seq FROM b, pg_notify('delayq_broadcast', b.seq::text) AS n
