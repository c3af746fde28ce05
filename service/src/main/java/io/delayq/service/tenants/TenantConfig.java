package io.delayq.service.tenants;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delayq.core.JobRules;
import io.delayq.core.tenant.SigningSecret;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.delayq.core.tenant.TopicPattern;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One tenant of the configuration's {@code tenants:} list. Read-only through the API (it is the service's own, like
 * the tokens of {@code auth.tokens}); tenants made through the API live in the store.
 *
 * <table>
 *   <caption>tenants[]</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code name}</td><td>(required)</td><td>1 to 128 characters of a topic's alphabet.</td></tr>
 *   <tr><td>{@code topics}</td><td>(required)</td><td>Patterns of the topics it owns: a topic name, or a name
 *       followed by {@code .*} ({@code billing.*} owns {@code billing.x} and {@code billing.eu.x}, not
 *       {@code billing}). Never overlapping another tenant's.</td></tr>
 *   <tr><td>{@code quotas}</td><td>none</td><td>{@code {maxPendingJobs, enqueuePerSecond, enqueueBurst,
 *       maxPayloadBytes, maxTopics}}, each optional (left out: no limit).</td></tr>
 *   <tr><td>{@code weight}</td><td>1</td><td>Its share of delivery capacity, 1 to 1000.</td></tr>
 *   <tr><td>{@code signingSecrets}</td><td>none</td><td>{@code [{id, secret}]}, at most two (a rotation); none:
 *       {@code delivery.signingSecret} signs its callbacks.</td></tr>
 * </table>
 */
public class TenantConfig {
    private String name;
    private List<TopicPattern> topics = new ArrayList<>();
    private TenantQuotas quotas;
    private Integer weight;
    private List<SigningSecret> signingSecrets = new ArrayList<>();

    public TenantConfig() {
    }

    public TenantConfig(String name, List<TopicPattern> topics, TenantQuotas quotas, Integer weight,
                        List<SigningSecret> signingSecrets) {
        this.name = name;
        this.topics = topics;
        this.quotas = quotas;
        this.weight = weight;
        this.signingSecrets = signingSecrets;
    }

    /** The tenant, checked as every tenant is (name, patterns, quotas, weight, secrets), marked as configured. */
    public Tenant tenant() {
        return new Tenant(name, topics, quotas, weight == null ? Tenant.DEFAULT_WEIGHT : weight, signingSecrets, true);
    }

    /**
     * Every configured tenant, checked alone and against each other: names unique, patterns of two tenants never
     * overlapping.
     *
     * @throws IllegalArgumentException naming the tenant and what is wrong (never a secret's value)
     */
    public static List<Tenant> tenants(List<TenantConfig> configs) {
        List<Tenant> tenants = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < configs.size(); i++) {
            Tenant tenant;
            try {
                tenant = configs.get(i).tenant();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tenants[" + i + "]: " + e.getMessage(), e);
            }
            if (!names.add(tenant.name())) {
                throw new IllegalArgumentException("tenants[" + i + "]: tenant " + JobRules.quote(tenant.name())
                        + " is declared twice");
            }
            for (Tenant other : tenants) {
                TopicPattern overlap = tenant.overlapWith(other);
                if (overlap != null) {
                    throw new IllegalArgumentException("tenants[" + i + "]: pattern " + JobRules.quote(overlap.text())
                            + " of tenant " + JobRules.quote(tenant.name()) + " overlaps tenant "
                            + JobRules.quote(other.name()) + "'s topics: a topic belongs to at most one tenant");
                }
            }
            tenants.add(tenant);
        }
        return List.copyOf(tenants);
    }

    @JsonProperty
    public String getName() {
        return name;
    }

    @JsonProperty
    public void setName(String name) {
        this.name = name;
    }

    @JsonProperty
    public List<TopicPattern> getTopics() {
        return topics;
    }

    @JsonProperty
    public void setTopics(List<TopicPattern> topics) {
        this.topics = topics;
    }

    @JsonProperty
    public TenantQuotas getQuotas() {
        return quotas;
    }

    @JsonProperty
    public void setQuotas(TenantQuotas quotas) {
        this.quotas = quotas;
    }

    @JsonProperty
    public Integer getWeight() {
        return weight;
    }

    @JsonProperty
    public void setWeight(Integer weight) {
        this.weight = weight;
    }

    @JsonProperty
    public List<SigningSecret> getSigningSecrets() {
        return signingSecrets;
    }

    @JsonProperty
    public void setSigningSecrets(List<SigningSecret> signingSecrets) {
        this.signingSecrets = signingSecrets;
    }

    /** Never the secrets' values. */
    @Override
    public String toString() {
        return "TenantConfig[" + name + " " + topics + " weight " + weight + "]";
    }
}
