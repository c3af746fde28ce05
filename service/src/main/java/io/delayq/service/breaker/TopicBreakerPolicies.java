package io.delayq.service.breaker;

import io.delayq.core.TopicSettings;
import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.BreakerSettings;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A topic's breaker policy: the service's {@code delivery.breaker} defaults under the topic's {@code breaker} settings
 * ({@link BreakerPolicy#over}). Resolved for every callback, so the few distinct settings seen are remembered.
 *
 * <p>A topic may set one probe bound alone, and the other one then comes from the defaults; the two can cross (a
 * topic's {@code probeInterval: 10m} under the default {@code maxProbeInterval: 5m}). The bound the topic did not set
 * gives way: the cap is raised to the topic's interval, or the interval lowered to the topic's cap. That is what the
 * topic asked for, and the policy never refuses a topic's settings at delivery time.
 */
public final class TopicBreakerPolicies {
    private static final int REMEMBERED = 1_000;

    private final BreakerPolicy defaults;
    private final ConcurrentHashMap<BreakerSettings, BreakerPolicy> resolved = new ConcurrentHashMap<>();

    public TopicBreakerPolicies(BreakerPolicy defaults) {
        this.defaults = defaults;
    }

    public BreakerPolicy defaults() {
        return defaults;
    }

    /** The policy of a topic with these settings. */
    public BreakerPolicy of(TopicSettings settings) {
        BreakerSettings topic = settings == null ? null : settings.breaker();
        if (topic == null) {
            return defaults;
        }
        BreakerPolicy known = resolved.get(topic);
        if (known != null) {
            return known;
        }
        if (resolved.size() >= REMEMBERED) {
            resolved.clear();
        }
        BreakerPolicy policy = defaults.over(reconciled(topic));
        resolved.put(topic, policy);
        return policy;
    }

    private BreakerSettings reconciled(BreakerSettings topic) {
        Long probe = topic.probeIntervalMs();
        Long cap = topic.maxProbeIntervalMs();
        if (probe != null && cap == null && probe > defaults.maxProbeIntervalMs()) {
            cap = probe;
        } else if (cap != null && probe == null && cap < defaults.probeIntervalMs()) {
            probe = cap;
        }
        return new BreakerSettings(topic.enabled(), topic.failureThreshold(), probe, cap, topic.releasePerSecond());
    }
}
