-- audit_at: when an audit entry happened (primary key), epoch ms: where the page after it starts; no row when there is
-- none of that id, or it is not :tenant's (NULL: anyone's, an operator's read).
-- Binds: :id, :tenant.
SELECT delayq_ms(at)
FROM delayq_audit
WHERE id = :id AND (:tenant::text IS NULL OR tenant = :tenant::text)
