package io.delayq.core.archive;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.delayq.core.AppliedMigration;
import io.delayq.core.JobStoreFactory;
import io.dropwizard.jackson.Discoverable;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;

import java.util.List;

/**
 * Builds the configured {@link JobArchive} ({@code archive: {type: mongo, …}}). Implementations carry
 * {@code @JsonTypeName} and are listed in {@code META-INF/services/io.delayq.core.archive.JobArchiveFactory}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
public interface JobArchiveFactory extends Discoverable {

    /** Creates the archive, registers its lifecycle and a health check named {@code "archive"}, returns it ready. */
    JobArchive build(LifecycleEnvironment lifecycle, HealthCheckRegistry healthChecks, MetricRegistry metrics);

    /**
     * Called with the configured store before {@link #build} and {@link #migrate}: an archive configured without a
     * database of its own may use the store's (one configuration block, one connection pool) when the store is on the
     * same kind of database.
     *
     * @return whether this archive now uses the store's database
     */
    default boolean useStoreDatabase(JobStoreFactory store) {
        return false;
    }

    /**
     * Applies the archive's missing schema migrations and returns what ran (the {@code migrate} command). Safe to run
     * again and while the service runs.
     */
    default List<AppliedMigration> migrate() {
        return List.of();
    }
}
