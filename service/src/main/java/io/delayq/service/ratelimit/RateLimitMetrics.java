package io.delayq.service.ratelimit;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rate limits' metrics, {@code delayq.ratelimit.*} (Prometheus {@code delayq_ratelimit_*}): permits granted
 * ({@code permits-granted}), takes that got fewer permits than asked for, so that jobs wait ({@code limited}), jobs
 * leased and given back without an attempt because their callback origin was over its limit ({@code origin-held}),
 * and the topics and origins waiting for a permit now on this instance ({@code waiting}, a gauge). The push engine and
 * the pull API share them.
 */
public final class RateLimitMetrics {
    static final String PREFIX = "delayq.ratelimit.";

    final Meter granted;
    final Meter limited;
    final Meter originHeld;
    private final Waiting waiting;

    /** Buckets this instance waits on now: a take got fewer permits than it asked for, and no later take got all. */
    static final class Waiting implements Gauge<Integer> {
        private final Set<String> keys = ConcurrentHashMap.newKeySet();

        @Override
        public Integer getValue() {
            return keys.size();
        }
    }

    /** The metrics in {@code registry}: every instance made over one registry shares its meters and gauge. */
    public RateLimitMetrics(MetricRegistry registry) {
        this.granted = registry.meter(PREFIX + "permits-granted");
        this.limited = registry.meter(PREFIX + "limited");
        this.originHeld = registry.meter(PREFIX + "origin-held");
        this.waiting = registry.gauge(PREFIX + "waiting", Waiting::new);
    }

    void took(String key, int asked, int granted) {
        if (granted > 0) {
            this.granted.mark(granted);
        }
        if (granted < asked) {
            limited.mark();
            if (waiting.keys.size() < 100_000) {
                waiting.keys.add(key);
            }
        } else {
            waiting.keys.remove(key);
        }
    }

    void heldForOrigin(int jobs) {
        originHeld.mark(jobs);
    }
}
