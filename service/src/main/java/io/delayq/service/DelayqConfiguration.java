package io.delayq.service;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delayq.core.JobRules;
import io.delayq.core.JobStoreFactory;
import io.delayq.core.archive.JobArchiveFactory;
import io.delayq.service.auth.AuthFactory;
import io.delayq.service.auth.DeclaredTenants;
import io.delayq.service.config.DefaultHealthChecks;
import io.delayq.service.config.DefaultStores;
import io.delayq.service.config.LimitsFactory;
import io.delayq.service.consumer.ConsumerFactory;
import io.delayq.core.tenant.Tenant;
import io.delayq.service.delivery.DeliveryFactory;
import io.delayq.service.notice.DeadNoticesFactory;
import io.delayq.service.prometheus.PrometheusFactory;
import io.delayq.service.tenants.TenantConfig;
import io.dropwizard.core.Configuration;
import io.dropwizard.validation.ValidationMethod;
import io.dropwizard.health.HealthFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

import java.util.Optional;
import java.util.ArrayList;
import java.util.List;

/**
 * The service's configuration ({@code config.yml}); docs/configuration.md has the full reference.
 *
 * <table>
 *   <caption>top-level blocks</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code store}</td><td>{@code type: redis} (embedded; see {@link DefaultStores})</td>
 *       <td>The job store, picked by {@code type} ({@link JobStoreFactory}).</td></tr>
 *   <tr><td>{@code archive}</td><td>the store's kind when it has one ({@code type: postgres} on the store's
 *       database), else {@code type: mongo} (embedded; see {@link DefaultStores})</td>
 *       <td>The durable archive of dead letters and finished jobs, picked by {@code type} ({@link JobArchiveFactory});
 *       see storage-mongo-archive/README.md and storage-postgres/README.md.</td></tr>
 *   <tr><td>{@code delivery}</td><td>(required: {@code signingSecret})</td>
 *       <td>The push engine: signing secret, concurrency, default retry policy and timeout, callback allow-list
 *       ({@link DeliveryFactory}).</td></tr>
 *   <tr><td>{@code deadNotices}</td><td>5 attempts, 1s doubling to 5m, 10s timeout</td>
 *       <td>How the notices of dead jobs to their {@code onDead} targets are sent and retried
 *       ({@link DeadNoticesFactory}).</td></tr>
 *   <tr><td>{@code auth}</td><td>no tokens</td><td>API tokens and their roles ({@link AuthFactory}).</td></tr>
 *   <tr><td>{@code limits}</td><td>see {@link LimitsFactory}</td>
 *       <td>Payload size, furthest delay, batch size, highest maxAttempts.</td></tr>
 *   <tr><td>{@code consumer}</td><td>1,000 event streams, 1,000 parked long polls</td>
 *       <td>What one instance holds open for consumers ({@link ConsumerFactory}).</td></tr>
 *   <tr><td>{@code prometheus}</td><td>50 topics</td><td>The Prometheus exposition ({@link PrometheusFactory}).</td></tr>
 *   <tr><td>{@code health}</td><td>see {@link DefaultHealthChecks}</td><td>Dropwizard's health module: which health
 *       checks run on a schedule and which are critical for {@code /health-check} (what a load balancer probes);
 *       checks the block leaves out keep delayq's defaults.</td></tr>
 *   <tr><td>{@code tenants}</td><td>none</td><td>Teams sharing the service: {@code {name, topics, quotas,
 *       weight, signingSecrets}} ({@link TenantConfig}); read-only through the API, which adds tenants of its own.</td></tr>
 *   <tr><td>{@code server}, {@code logging}, {@code metrics}</td><td>Dropwizard's</td>
 *       <td>Ports, request log, log levels, metric reporters.</td></tr>
 * </table>
 */
@DeclaredTenants // every auth.tokens[].tenant is one of tenants:
public class DelayqConfiguration extends Configuration {
    // Left out of the configuration: the default type, found by name like any `type:` line (DefaultStores).
    @Valid
    @NotNull(message = "must be set (the default, type " + DefaultStores.STORE_TYPE + ", is not on the classpath)")
    private JobStoreFactory store = DefaultStores.store().orElse(null);

    // Left out: the default for the store (DefaultStores.archiveFor), resolved by getArchive once the store is known.
    private JobArchiveFactory archive;

    @Valid
    @NotNull
    private DeliveryFactory delivery = new DeliveryFactory();

    @Valid
    @NotNull
    private DeadNoticesFactory deadNotices = new DeadNoticesFactory();

    @Valid
    @NotNull
    private AuthFactory auth = new AuthFactory();

    @Valid
    @NotNull
    private LimitsFactory limits = new LimitsFactory();

    @Valid
    @NotNull
    private PrometheusFactory prometheus = new PrometheusFactory();

    @Valid
    @NotNull
    private ConsumerFactory consumer = new ConsumerFactory();

    @NotNull
    private List<TenantConfig> tenants = new ArrayList<>();

    /** The tenants of the configuration, each checked as tenants are, and against each other (no overlap). */
    public List<Tenant> tenants() {
        return TenantConfig.tenants(tenants);
    }

    @JsonIgnore
    @ValidationMethod(message = "tenants must each be a valid tenant (name, topics, quotas, weight 1 to 1000, at most"
            + " two signingSecrets of 16 to 256 bytes), with unique names and patterns no two tenants share")
    public boolean isTenantsValid() {
        try {
            tenants();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @JsonProperty
    public List<TenantConfig> getTenants() {
        return tenants;
    }

    @JsonProperty
    public void setTenants(List<TenantConfig> tenants) {
        this.tenants = tenants;
    }

    @JsonProperty
    public ConsumerFactory getConsumer() {
        return consumer;
    }

    @JsonProperty
    public void setConsumer(ConsumerFactory consumer) {
        this.consumer = consumer;
    }
    private boolean healthCompleted;

    @JsonProperty
    public JobStoreFactory getStore() {
        return store;
    }

    @JsonProperty
    public void setStore(JobStoreFactory store) {
        this.store = store;
    }

    /**
     * The archive: the configured one, or the default for the configured store ({@link DefaultStores#archiveFor}),
     * given the store's database when it has none of its own ({@link JobArchiveFactory#useStoreDatabase}). Resolved on
     * first call, which comes after parsing (validation, then the application and the {@code migrate} command).
     */
    @JsonProperty
    @Valid
    @NotNull(message = "must be set (no archive of the store's type, nor the default, type "
            + DefaultStores.ARCHIVE_TYPE + ", is on the classpath)")
    public synchronized JobArchiveFactory getArchive() {
        if (archive == null) {
            archive = DefaultStores.archiveFor(store).orElse(null);
        }
        if (archive != null) {
            archive.useStoreDatabase(store);
        }
        return archive;
    }

    @JsonProperty
    public void setArchive(JobArchiveFactory archive) {
        this.archive = archive;
    }

    @JsonProperty
    public DeliveryFactory getDelivery() {
        return delivery;
    }

    @JsonProperty
    public void setDelivery(DeliveryFactory delivery) {
        this.delivery = delivery;
    }

    @JsonProperty
    public DeadNoticesFactory getDeadNotices() {
        return deadNotices;
    }

    @JsonProperty
    public void setDeadNotices(DeadNoticesFactory deadNotices) {
        this.deadNotices = deadNotices;
    }

    @JsonProperty
    public AuthFactory getAuth() {
        return auth;
    }

    @JsonProperty
    public void setAuth(AuthFactory auth) {
        this.auth = auth;
    }

    @JsonProperty
    public LimitsFactory getLimits() {
        return limits;
    }

    @JsonProperty
    public void setLimits(LimitsFactory limits) {
        this.limits = limits;
    }

    /**
     * The default backoff is held to the rules of a job's own ({@link JobRules#checkBackoff}): what the API refuses in
     * a job cannot come in through the configuration. The message states every bound, since a validation method's is
     * fixed.
     */
    @JsonIgnore
    @ValidationMethod(message = "delivery.defaultBackoff must be a backoff a job could have: exponential with an"
            + " initial of at least 1ms, a multiplier from 1.0 to 10.0 and a max from initial up to limits.maxDelay,"
            + " or a schedule of at most limits.maxAttempts delays, each at most limits.maxDelay")
    public boolean isDefaultBackoffWithinTheRules() {
        if (delivery == null || limits == null || delivery.getDefaultBackoff() == null) {
            return true;
        }
        JobRules rules;
        try {
            rules = limits.jobRules();
        } catch (RuntimeException badLimits) {
            return true; // the limits' own validation names what is wrong with them
        }
        try {
            rules.checkBackoff(delivery.getDefaultBackoff());
            return true;
        } catch (IllegalArgumentException outside) {
            return false;
        }
    }

    /**
     * Dropwizard's {@code health:} block (its health module: scheduled checks, {@code /health-check} on the
     * application port for load balancers), completed with delayq's defaults ({@link DefaultHealthChecks}): a
     * configuration without the block gets them all, one with it keeps them for every check its
     * {@code healthChecks} list does not name. Resolved on first call, after parsing, like {@link #getArchive()}.
     */
    @Override
    @JsonProperty("health")
    public synchronized Optional<HealthFactory> getHealthFactory() {
        if (!healthCompleted) {
            super.setHealthFactory(DefaultHealthChecks.complete(super.getHealthFactory().orElse(null)));
            healthCompleted = true;
        }
        return super.getHealthFactory();
    }

    @Override
    @JsonProperty("health")
    public synchronized void setHealthFactory(HealthFactory health) {
        super.setHealthFactory(health);
        healthCompleted = false;
    }

    @JsonProperty
    public PrometheusFactory getPrometheus() {
        return prometheus;
    }

    @JsonProperty
    public void setPrometheus(PrometheusFactory prometheus) {
        this.prometheus = prometheus;
    }
}
