-- tenant_put: creates or replaces a tenant, if the tenancy version is still the one the caller read (compare-and-set,
-- mirrors tenant_put.lua). The version row is updated only while it holds :expected, in the same statement as the
-- write: of two writers of one version, the second waits for the first's row lock, then finds the version moved and
-- writes nothing (READ COMMITTED re-checks the condition on the row as committed).
-- Binds: :expected, :name, :tenant (JSON).
-- Returns one row (true) when written, none when the version moved meanwhile.
WITH moved AS (
    UPDATE delayq_tenancy SET version = version + 1 WHERE version = :expected RETURNING version
)
INSERT INTO delayq_tenants AS t (name, tenant, updated_at)
SELECT :name, :tenant::jsonb, delayq_now() FROM moved
ON CONFLICT (name) DO UPDATE SET tenant = excluded.tenant, updated_at = excluded.updated_at
RETURNING true
