-- extend: moves a lease's deadline to :leaseMs from now (mirrors extend.lua).
-- Binds: :topic, :id, :token, :leaseMs.
-- Returns status OK (with deadline_ms), STALE_LEASE or NOT_FOUND.
WITH now AS MATERIALIZED (SELECT delayq_now() AS t),
extended AS (
    UPDATE delayq_jobs j
    SET lease_deadline = now.t + :leaseMs * interval '1 millisecond'
    FROM now
    WHERE j.topic = :topic AND j.id = :id AND j.state = 'leased' AND j.lease_token = :token::uuid
    RETURNING j.lease_deadline
)
SELECT CASE WHEN EXISTS (SELECT 1 FROM extended) THEN 'OK'
            WHEN EXISTS (SELECT 1 FROM delayq_jobs x WHERE x.topic = :topic AND x.id = :id) THEN 'STALE_LEASE'
            ELSE 'NOT_FOUND' END AS status,
       (SELECT delayq_ms(lease_deadline) FROM extended) AS deadline_ms
