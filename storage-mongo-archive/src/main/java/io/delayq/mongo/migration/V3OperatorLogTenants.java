package io.delayq.mongo.migration;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;

/**
 * The operator log by tenant: a tenant lists its own bulk operations and audit entries, newest first, and pages its
 * audit log below the last entry it saw, as a range of one index each — {@code tenant_createdAt_id}
 * {@code {tenant, createdAt↓, _id↓}} on {@code delayq_operations} and {@code tenant_at_id} {@code {tenant, at↓, _id↓}}
 * on {@code delayq_audit} — rather than through the whole log. Operators' reads keep the log's own indexes
 * ({@code createdAt_id}, {@code at_id}, which the log creates on first use). Records written before tenants have no
 * {@code tenant} field: they are operators' (a tenant's equality never matches a missing field).
 */
public final class V3OperatorLogTenants implements MongoMigration {
    public static final String OPERATIONS = "delayq_operations";
    public static final String AUDIT = "delayq_audit";
    public static final String OPERATIONS_INDEX = "tenant_createdAt_id";
    public static final String AUDIT_INDEX = "tenant_at_id";

    @Override
    public int version() {
        return 3;
    }

    @Override
    public String description() {
        return "operator log indexes by tenant: delayq_operations {tenant, createdAt, _id}, delayq_audit {tenant, at, _id}";
    }

    @Override
    public void apply(MongoDatabase database) {
        database.getCollection(OPERATIONS).createIndex(Indexes.compoundIndex(Indexes.ascending("tenant"),
                Indexes.descending("createdAt", "_id")), new IndexOptions().name(OPERATIONS_INDEX));
        database.getCollection(AUDIT).createIndex(Indexes.compoundIndex(Indexes.ascending("tenant"),
                Indexes.descending("at", "_id")), new IndexOptions().name(AUDIT_INDEX));
    }
}
