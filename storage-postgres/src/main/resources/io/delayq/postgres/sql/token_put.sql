-- token_put: creates or replaces an API token's row (its SHA-256, never the token), if the tenancy version is still
-- the one the caller read (compare-and-set, mirrors token_put.lua); a revocation is a put. Its last use is kept.
-- Binds: :expected, :tenant ('' for an operators' token), :name, :token (JSON).
-- Returns one row (true) when written, none when the version moved meanwhile.
WITH moved AS (
    UPDATE delayq_tenancy SET version = version + 1 WHERE version = :expected RETURNING version
)
INSERT INTO delayq_tokens AS t (tenant, name, token, updated_at)
SELECT :tenant, :name, :token::jsonb, delayq_now() FROM moved
ON CONFLICT (tenant, name) DO UPDATE SET token = excluded.token, updated_at = excluded.updated_at
RETURNING true
