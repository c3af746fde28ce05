package io.delayq.core;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.dropwizard.jackson.Discoverable;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;

import java.util.List;

/**
 * Builds the configured {@link JobStore}. Implementations carry {@code @JsonTypeName} (e.g. {@code "redis"}) and are
 * listed in {@code META-INF/services/io.delayq.core.JobStoreFactory}, so a store module is a jar on the classpath plus
 * a {@code store: {type: …}} line in the configuration.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
public interface JobStoreFactory extends Discoverable {

    /**
     * Creates the store, registers what must be started and stopped with {@code lifecycle} and a health check named
     * {@code "store"}, and returns it ready to use.
     */
    JobStore build(LifecycleEnvironment lifecycle, HealthCheckRegistry healthChecks, MetricRegistry metrics);

    /**
     * Applies the store's missing schema migrations and returns what ran (the {@code migrate} command). A store with
     * no schema of its own has nothing to do. Safe to run again and while the service runs.
     */
    default List<AppliedMigration> migrate() {
        return List.of();
    }
}
