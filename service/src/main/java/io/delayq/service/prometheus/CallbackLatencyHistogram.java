package io.delayq.service.prometheus;

import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * {@code delayq_delivery_callback_latency_seconds}, a histogram of every time the engine's Dropwizard timer
 * {@value #TIMER} records. The engine asks the registry for that timer with {@code registry.timer(name, supplier)},
 * which returns a timer already registered under the name; this class registers it first (before the engine is
 * built), with a reservoir that also observes each value into the histogram. The engine's own code is untouched and
 * the Dropwizard timer reads as before (same lock-free reservoir).
 */
final class CallbackLatencyHistogram {
    static final String TIMER = "delayq.delivery.callback-latency";

    private CallbackLatencyHistogram() {
    }

    /** Registers the timer and the histogram; must run before the delivery engine is built. */
    static void register(PrometheusRegistry registry, MetricRegistry dropwizard) {
        Histogram histogram = Histogram.builder()
                .name("delayq_delivery_callback_latency_seconds")
                .help("Time from sending a callback to its answer (or failure), as the delivery engine times it")
                .unit(Unit.SECONDS)
                .classicOnly()
                .classicUpperBounds(LatencyBuckets.SECONDS)
                .register(registry);
        // Throws if the engine registered its timer already: the histogram would silently stay empty otherwise.
        dropwizard.register(TIMER, new Timer(new Observing(
                LockFreeExponentiallyDecayingReservoir.builder().build(), histogram)));
    }

    /** A reservoir that also observes each value (a timer's values are nanoseconds) into a Prometheus histogram. */
    private static final class Observing implements Reservoir {
        private final Reservoir delegate;
        private final Histogram histogram;

        Observing(Reservoir delegate, Histogram histogram) {
            this.delegate = delegate;
            this.histogram = histogram;
        }

        @Override
        public int size() {
            return delegate.size();
        }

        @Override
        public void update(long nanos) {
            delegate.update(nanos);
            histogram.observe(Unit.nanosToSeconds(nanos));
        }

        @Override
        public Snapshot getSnapshot() {
            return delegate.getSnapshot();
        }
    }
}
