package io.delayq.postgres;

import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.Optional;

/**
 * The tenancy's statements, one each, in {@code io/delayq/postgres/sql/} ({@link StatementFiles}; named as their Lua
 * twins of storage-redis): each change is one statement that compares the version of {@code delayq_tenancy} (V15)
 * and writes. A token's tenant is {@code ''} for an operators' token.
 */
interface TenancyStatements {

    /** {@code tenancy_read}'s one row: the version, and the records as JSON arrays. */
    record Snapshot(long version, String tenants, String tokens, String uses) {
    }

    @SqlQuery("tenancy_version")
    long version();

    @SqlQuery("tenancy_read")
    Snapshot read();

    /** Present (true) when written. */
    @SqlQuery("tenant_put")
    Optional<Boolean> putTenant(@Bind("expected") long expected, @Bind("name") String name,
                                @Bind("tenant") String json);

    /** Whether the version held. */
    @SqlQuery("tenant_delete")
    boolean deleteTenant(@Bind("expected") long expected, @Bind("name") String name);

    /** Present (true) when written. */
    @SqlQuery("token_put")
    Optional<Boolean> putToken(@Bind("expected") long expected, @Bind("tenant") String tenant,
                               @Bind("name") String name, @Bind("token") String json);

    /** Whether the version held. */
    @SqlQuery("token_delete")
    boolean deleteToken(@Bind("expected") long expected, @Bind("tenant") String tenant, @Bind("name") String name);

    @SqlUpdate("token_use")
    void recordUse(@Bind("tenants") String[] tenants, @Bind("names") String[] names, @Bind("ats") Long[] ats);
}
