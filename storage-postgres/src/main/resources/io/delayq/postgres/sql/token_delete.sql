-- token_delete: deletes an API token's row, its last use with it, if the tenancy version is still the one the caller
-- read (compare-and-set, mirrors token_delete.lua). The version moves only when a token was deleted.
-- Binds: :expected, :tenant ('' for an operators' token), :name.
-- Returns one row: true when the version held (the token is gone, or never was), false when it moved meanwhile.
WITH held AS MATERIALIZED (
    SELECT version FROM delayq_tenancy WHERE version = :expected FOR UPDATE
),
gone AS (
    DELETE FROM delayq_tokens WHERE tenant = :tenant AND name = :name AND EXISTS (SELECT 1 FROM held) RETURNING 1
),
moved AS (
    UPDATE delayq_tenancy SET version = version + 1 WHERE EXISTS (SELECT 1 FROM gone) RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM held)
