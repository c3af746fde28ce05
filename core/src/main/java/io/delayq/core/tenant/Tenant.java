package io.delayq.core.tenant;

import io.delayq.core.JobRules;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A team sharing the service: the topics it owns, what it may hold and send, its share of delivery capacity, and the
 * secrets its callbacks are signed with. A topic belongs to at most one tenant (patterns of two tenants never
 * overlap); a topic outside every tenant belongs to the operators.
 *
 * @param name           1 to 128 characters of a topic's alphabet, not only dots
 * @param topics         one or more patterns (see {@link TopicPattern})
 * @param quotas         its limits; {@link TenantQuotas#none()} for none
 * @param weight         its share of delivery capacity against other tenants with work due, 1 to
 *                       {@value #MAX_WEIGHT} (operators' topics together weigh {@value #DEFAULT_WEIGHT})
 * @param signingSecrets zero to {@value #MAX_SIGNING_SECRETS} secrets (two during a rotation); none: the service's
 *                       own {@code delivery.signingSecret} signs its callbacks
 * @param fromConfig     declared in {@code config.yml}: read-only through the API
 */
public record Tenant(String name, List<TopicPattern> topics, TenantQuotas quotas, int weight,
                     List<SigningSecret> signingSecrets, boolean fromConfig) {
    public static final int DEFAULT_WEIGHT = 1;
    public static final int MAX_WEIGHT = 1_000;
    public static final int MAX_SIGNING_SECRETS = 2;
    public static final int MAX_PATTERNS = 100;

    public Tenant {
        JobRules.checkClientName("tenant", name);
        if (topics == null || topics.isEmpty() || topics.size() > MAX_PATTERNS) {
            throw new IllegalArgumentException("tenant " + JobRules.quote(name) + " needs 1 to " + MAX_PATTERNS
                    + " topic patterns (e.g. [\"billing.*\"])");
        }
        topics = List.copyOf(topics);
        if (new HashSet<>(topics).size() != topics.size()) {
            throw new IllegalArgumentException("tenant " + JobRules.quote(name) + " names a topic pattern twice");
        }
        quotas = quotas == null ? TenantQuotas.none() : quotas;
        if (weight < 1 || weight > MAX_WEIGHT) {
            throw new IllegalArgumentException("weight must be 1 to " + MAX_WEIGHT + "; it was " + weight);
        }
        signingSecrets = signingSecrets == null ? List.of() : List.copyOf(signingSecrets);
        if (signingSecrets.size() > MAX_SIGNING_SECRETS) {
            throw new IllegalArgumentException("a tenant has at most " + MAX_SIGNING_SECRETS + " signing secrets (two"
                    + " during a rotation: add the new one, move receivers to it, then remove the old one)");
        }
        Set<String> ids = new HashSet<>();
        for (SigningSecret s : signingSecrets) {
            if (!ids.add(s.id())) {
                throw new IllegalArgumentException("signing secret id " + JobRules.quote(s.id()) + " appears twice");
            }
        }
    }

    /** Whether one of the tenant's patterns matches the topic. */
    public boolean owns(String topic) {
        for (TopicPattern p : topics) {
            if (p.matches(topic)) {
                return true;
            }
        }
        return false;
    }

    /** The first of this tenant's patterns that overlaps one of {@code other}'s, or {@code null}. */
    public TopicPattern overlapWith(Tenant other) {
        for (TopicPattern mine : topics) {
            for (TopicPattern theirs : other.topics) {
                if (mine.overlaps(theirs)) {
                    return mine;
                }
            }
        }
        return null;
    }

    /** Never the secrets' values. */
    @Override
    public String toString() {
        return "Tenant[" + name + " " + topics + " weight " + weight + " " + quotas + " secrets "
                + signingSecrets.stream().map(SigningSecret::id).toList() + (fromConfig ? " (config)" : "") + "]";
    }
}
