-- tenant_delete: deletes a tenant, if the tenancy version is still the one the caller read (compare-and-set, mirrors
-- tenant_delete.lua). The version is locked first, and moves only when a tenant was deleted: deleting a missing one
-- writes nothing. The tenant's tokens are rows of their own, deleted by the caller.
-- Binds: :expected, :name.
-- Returns one row: true when the version held (the tenant is gone, or never was), false when it moved meanwhile.
WITH held AS MATERIALIZED (
    SELECT version FROM delayq_tenancy WHERE version = :expected FOR UPDATE
),
gone AS (
    DELETE FROM delayq_tenants WHERE name = :name AND EXISTS (SELECT 1 FROM held) RETURNING 1
),
moved AS (
    UPDATE delayq_tenancy SET version = version + 1 WHERE EXISTS (SELECT 1 FROM gone) RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM held)
