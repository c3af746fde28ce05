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

    private Tenancy(TenantDirectory directory, TenantUse use, JobStore store) {
        this.directory = directory;
        this.use = use;
        this.store = store;
    }

    /** The directory over the configuration's tenants and tokens and the store's, managed (after the store). */
    public static Tenancy build(DelayqConfiguration config, JobStore store, Environment environment) {
        TenantDirectory directory = new TenantDirectory(store.tenants(), config.tenants(),
                config.getAuth().getTokens().stream().map(ConfigToken::of).toList(), System::currentTimeMillis,
                REFRESH_MS);
        environment.lifecycle().manage(directory);
        return new Tenancy(directory, new TenantUse(store), store);
    }

    public TenantDirectory directory() {
        return directory;
    }

    /** The tenants' quotas on every enqueue. */
    public EnqueueGate quotas() {
        return new TenantQuotaGate(directory, use, store.rateLimiters());
    }

    /** {@code /v1/admin/tenants} and {@code /v1/admin/tokens}. */
    public void registerApi(Environment environment, AuditTrail audit) {
        TenancyChanges changes = new TenancyChanges(store.tenants(), directory, use, System::currentTimeMillis);
        environment.jersey().register(new TenantsResource(directory, changes, use, audit));
        environment.jersey().register(new TokensResource(directory, changes, audit, System::currentTimeMillis));
    }
}
