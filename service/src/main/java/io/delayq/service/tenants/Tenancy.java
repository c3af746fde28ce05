package io.delayq.service.tenants;

import io.delayq.core.JobStore;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.jobs.EnqueueGate;
import io.dropwizard.core.setup.Environment;

/** Wires the tenants into the service: the directory, the quotas' gate and the admin API. */
public final class Tenancy {
    /** How often each instance checks the store's tenancy version: changes are seen everywhere within ~1 s. */
    static final long REFRESH_MS = 1_000;

    private final TenantDirectory directory;
    private final TenantUse use;
    private final JobStore store;
    private final QuotaRefusals refusals = new QuotaRefusals();
    private final TenantQuotaReadings readings;
    private final TenantQuotaGate quotas;

    private Tenancy(TenantDirectory directory, TenantUse use, JobStore store, long useReadMs) {
        this.directory = directory;
        this.use = use;
        this.store = store;
        this.readings = new TenantQuotaReadings(directory, use, useReadMs);
        // one gate for every caller (enqueues, batches, schedules): it holds each tenant's pending count in flight
        this.quotas = new TenantQuotaGate(directory, use, store.rateLimiters(), refusals);
    }

    /** The directory over the configuration's tenants and tokens and the store's, managed (after the store). */
    public static Tenancy build(DelayqConfiguration config, JobStore store, Environment environment) {
        TenantDirectory directory = new TenantDirectory(store.tenants(), config.tenants(),
                config.getAuth().getTokens().stream().map(ConfigToken::of).toList(), System::currentTimeMillis,
                REFRESH_MS);
        environment.lifecycle().manage(directory);
        Tenancy tenancy = new Tenancy(directory, new TenantUse(store), store,
                config.getPrometheus().getTenantUseInterval().toMilliseconds());
        environment.lifecycle().manage(tenancy.readings); // after the directory: it reads the directory's tenants
        return tenancy;
    }

    public TenantDirectory directory() {
        return directory;
    }

    /** The tenants' quotas on every enqueue and new schedule. */
    public EnqueueGate quotas() {
        return quotas;
    }

    /** Every tenant's use and limits, read on a timer (the {@code delayq_tenant_*} gauges). */
    public TenantQuotaReadings quotaReadings() {
        return readings;
    }

    /** The quota refusals this instance answered ({@code delayq_tenant_quota_exceeded_total}). */
    public QuotaRefusals quotaRefusals() {
        return refusals;
    }

    /** {@code /v1/admin/tenants} and {@code /v1/admin/tokens}. */
    public void registerApi(Environment environment, AuditTrail audit) {
        TenancyChanges changes = new TenancyChanges(store.tenants(), directory, use, System::currentTimeMillis);
        environment.jersey().register(new TenantsResource(directory, changes, use, audit));
        environment.jersey().register(new TokensResource(directory, changes, audit, System::currentTimeMillis));
    }
}
