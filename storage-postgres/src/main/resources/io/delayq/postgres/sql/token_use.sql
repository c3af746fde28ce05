-- token_use: raises tokens' last use, never lowers it, and moves no version (mirrors token_use.lua). A token without a
-- row (deleted meanwhile) gets none. Rows are locked in key order, so instances reporting at once never deadlock.
-- Binds: :tenants ('' for operators' tokens), :names, :ats (epoch ms), one element per token.
-- Returns nothing.
WITH locked AS (
    SELECT t.tenant, t.name, u.at
    FROM delayq_tokens t
    JOIN unnest(:tenants::text[], :names::text[], :ats::bigint[]) AS u(tenant, name, at)
      ON t.tenant = u.tenant AND t.name = u.name
    WHERE t.last_used_at IS NULL OR t.last_used_at < delayq_ts(u.at)
    ORDER BY t.tenant, t.name
    FOR UPDATE OF t
)
UPDATE delayq_tokens t SET last_used_at = greatest(t.last_used_at, delayq_ts(l.at))
FROM locked l
WHERE t.tenant = l.tenant AND t.name = l.name
