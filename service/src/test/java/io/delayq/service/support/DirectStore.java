package io.delayq.service.support;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.delayq.core.JobStore;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import org.eclipse.jetty.util.component.LifeCycle;

import java.util.ArrayList;
import java.util.List;

/**
 * A second client of the store a running service uses, built from the service's own {@code store:} configuration: a
 * test puts there what the API refuses today but a store written by an earlier version may hold (a job id made only
 * of dots), and the service then finds it as it would find such legacy data.
 */
public final class DirectStore implements AutoCloseable {
    private final LifecycleEnvironment lifecycle;
    private final JobStore store;

    private DirectStore(LifecycleEnvironment lifecycle, JobStore store) {
        this.lifecycle = lifecycle;
        this.store = store;
    }

    public static DirectStore of(DropwizardAppExtension<DelayqConfiguration> app) {
        LifecycleEnvironment lifecycle = new LifecycleEnvironment(new MetricRegistry());
        JobStore store = app.getConfiguration().getStore().build(lifecycle, new HealthCheckRegistry(),
                new MetricRegistry());
        return new DirectStore(lifecycle, store);
    }

    public JobStore store() {
        return store;
    }

    @Override
    public void close() throws Exception {
        List<LifeCycle> managed = new ArrayList<>(lifecycle.getManagedObjects());
        for (int i = managed.size() - 1; i >= 0; i--) {
            managed.get(i).stop();
        }
    }
}
