-- audit: appends an entry. Writing the same id again (a retried append whose first try landed) leaves the first.
-- Binds: :id, :at (epoch ms), :actor, :action, :target, :count, :detail, :tenant, :retentionMs.
INSERT INTO delayq_audit (id, at, actor, action, target, count, detail, tenant, expire_at)
VALUES (:id, delayq_ts(:at::bigint), :actor, :action, :target, :count, :detail::text, :tenant::text,
        delayq_ts(:at::bigint) + :retentionMs * interval '1 millisecond')
ON CONFLICT (id) DO NOTHING
