-- audit_at: when an audit entry happened (primary key), epoch ms: where the page after it starts.
-- Binds: :id.
SELECT delayq_ms(at)
FROM delayq_audit
WHERE id = :id
