package io.delayq.service.tenants;

import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Every tenant's quota use as the store holds it (pending jobs with schedules, topics) beside its limits, read on a
 * timer every {@code periodMs} rather than per scrape: one reading serves every scrape, so the store is read once per
 * period per instance however often Prometheus asks, and the work is bounded by the number of tenants. The values are
 * store-wide (every instance reports the same): aggregate them with {@code max}, never {@code sum}.
 *
 * <p>While the store cannot be read, or before the first reading, {@link #current()} is {@code null}: the gauges then
 * have no sample, rather than numbers from before an outage.
 */
public final class TenantQuotaReadings implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(TenantQuotaReadings.class);
    /**
     * One tenant's use and limits at the last reading.
     *
     * @param maxPendingJobs its quota, {@code null} when it has none (the limit gauge then has no sample)
     * @param maxTopics      its quota, {@code null} when it has none
     */
    public record Reading(String tenant, long pendingJobs, Long maxPendingJobs, int topics, Integer maxTopics) {
    }

    private final TenantDirectory directory;
    private final TenantUse use;
    private final long periodMs;
    private volatile List<Reading> current;
    private volatile boolean failing;
    private ScheduledExecutorService timer;

    public TenantQuotaReadings(TenantDirectory directory, TenantUse use, long periodMs) {
        this.directory = directory;
        this.use = use;
        this.periodMs = periodMs;
    }

    @Override
    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tenant-quota-readings");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::read, 0, periodMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    /** The last reading, one per tenant; {@code null} when the last read failed or none was made yet. */
    public List<Reading> current() {
        return current;
    }

    void read() {
        try {
            List<Tenant> tenants = directory.tenants();
            Map<String, TenantUse.Use> uses = use.ofEach(tenants);
            List<Reading> readings = new ArrayList<>();
            for (Tenant tenant : tenants) {
                TenantUse.Use now = uses.get(tenant.name());
                TenantQuotas q = tenant.quotas();
                readings.add(new Reading(tenant.name(), now.pendingJobs(), q.maxPendingJobs(), now.topics(),
                        q.maxTopics()));
            }
            current = List.copyOf(readings);
            if (failing) {
                LOG.info("The tenants' quota use can be read again");
                failing = false;
            }
        } catch (RuntimeException e) {
            current = null;
            if (!failing) {
                LOG.warn("Cannot read the tenants' quota use for the metrics; no samples until it can: {}",
                        e.toString());
                failing = true;
            }
        }
    }
}
