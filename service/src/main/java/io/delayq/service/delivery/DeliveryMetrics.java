package io.delayq.service.delivery;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.delayq.core.DeadCause;
import io.delayq.service.history.TopicActivity;

import java.util.function.IntSupplier;

/**
 * The engine's metrics, {@code delayq.delivery.*}: outcome meters, reserve calls, callback latency, lateness and the
 * callbacks in flight (per-topic counters are in {@link TopicState}).
 */
final class DeliveryMetrics {
    static final String PREFIX = "delayq.delivery.";

    final MetricRegistry registry;
    /**
     * Jobs not delivered by their expiry, made dead (cause EXPIRED) by this instance's reserves and sweeps, push and
     * pull alike: {@code delayq_jobs_expired_total}. The consumer endpoints mark the same meter (same name).
     */
    public static final String EXPIRED = "delayq.jobs.expired";
    final Meter expired;
    final Meter delivered;
    final Meter failed;
    final Meter dead;
    /** Callbacks that answered 202 Accepted: the receiver confirms them later. */
    final Meter accepted;
    /** 202s whose lease extension reached the store after the lease had ended: the job may run twice. */
    final Meter lateExtensions;
    final Meter reserveCalls;
    final Meter reserved;
    final Timer callbackLatency;
    /** ms from a job's run time to the start of its delivery, by the store's clock. */
    final Histogram lateness;
    /** The same outcomes per topic, for the stored per-minute history. */
    final TopicActivity activity;

    DeliveryMetrics(MetricRegistry registry, IntSupplier inFlight, TopicActivity activity) {
        this.registry = registry;
        this.activity = activity;
        this.delivered = registry.meter(PREFIX + "delivered");
        this.failed = registry.meter(PREFIX + "failed");
        this.dead = registry.meter(PREFIX + "dead");
        this.accepted = registry.meter(PREFIX + "accepted");
        this.lateExtensions = registry.meter(PREFIX + "async-extensions-late");
        this.reserveCalls = registry.meter(PREFIX + "reserve-calls");
        this.reserved = registry.meter(PREFIX + "reserved");
        this.expired = registry.meter(EXPIRED);
        // Lock-free reservoirs: these are updated once per job from many threads.
        this.callbackLatency = registry.timer(PREFIX + "callback-latency",
                () -> new Timer(LockFreeExponentiallyDecayingReservoir.builder().build()));
        this.lateness = registry.histogram(PREFIX + "lateness",
                () -> new Histogram(LockFreeExponentiallyDecayingReservoir.builder().build()));
        registry.gauge(PREFIX + "in-flight", () -> inFlight::getAsInt);
    }

    /**
     * Counts jobs of a topic whose last attempt's lease ran out unanswered once too often, made dead (cause
     * LEASE_EXPIRED) when the engine took their leases back, push and pull alike: the topic's dead letters in its
     * history and per-topic series.
     */
    void leaseExpiredDead(String topic, int count) {
        if (count > 0) {
            activity.dead(topic, DeadCause.LEASE_EXPIRED, count);
        }
    }

    /**
     * Counts jobs of a topic that a reserve, a sweep, a lease taken back or a failed attempt made dead of their expiry:
     * the meter, and the topic's dead letters of cause EXPIRED in its history.
     */
    void expired(String topic, int count) {
        if (count > 0) {
            expired.mark(count);
            activity.dead(topic, DeadCause.EXPIRED, count);
        }
    }
}
