-- V16: the operator log by tenant (issue 28): every bulk operation and audit entry belongs to a tenant (the one that
-- owns the topics acted on, see core's AuditEntry and BulkOperation) or to the operators (NULL), and a tenant reads
-- its own only. storage-postgres/README.md says which statement uses which index.
--
-- Dead letters need nothing new: a tenant's scope is a condition on their topic, an exact name or a prefix, and the
-- topic column is "C"-collated (V3), so a prefix is a range of the topic indexes (topic > 'billing.' AND
-- topic < 'billing/', code point order) with no pattern character to escape.
--
-- Rows written before this version have no tenant: they are the operators'.

ALTER TABLE delayq_operations ADD COLUMN tenant text COLLATE "C";
ALTER TABLE delayq_audit ADD COLUMN tenant text COLLATE "C";

-- A tenant's list newest first, and its audit log's next page below the last entry it saw: a range of one index
-- each, in the order of the operators' indexes (V6). Partial: the operators' rows (most of them, in a service without
-- tenants) are in none, and a tenant's equality implies NOT NULL, so the planner takes them for it.
CREATE INDEX delayq_operations_tenant ON delayq_operations (tenant, created_at DESC, id DESC)
    WHERE tenant IS NOT NULL;
CREATE INDEX delayq_audit_tenant ON delayq_audit (tenant, at DESC, id DESC)
    WHERE tenant IS NOT NULL;
