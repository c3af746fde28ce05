package io.delayq.service.breaker;

import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.Origins;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * This instance's {@link OriginView} of every callback origin it delivers to, and the origin of each callback URL
 * (remembered, so a URL is parsed once). Both maps are bounded: past {@value #MAX_ENTRIES} entries they start afresh,
 * which costs a store read per origin and forgets release slots, nothing else.
 */
final class CircuitViews {
    private static final Logger LOG = LoggerFactory.getLogger(CircuitViews.class);
    private static final int MAX_ENTRIES = 10_000;
    private static final long ERROR_LOG_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final CircuitBreakers store;
    private final ConcurrentHashMap<String, OriginView> views = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> origins = new ConcurrentHashMap<>();
    private volatile long lastErrorLogNanos;

    CircuitViews(CircuitBreakers store) {
        this.store = store;
    }

    /** The origin of a callback URL, or {@code null} when it has none (the delivery then fails on its own). */
    String originOf(String url) {
        String known = origins.get(url);
        if (known != null) {
            return known;
        }
        String origin;
        try {
            origin = Origins.of(url);
        } catch (IllegalArgumentException notAbsolute) {
            return null;
        }
        if (origins.size() >= MAX_ENTRIES) {
            origins.clear();
        }
        origins.put(url, origin);
        return origin;
    }

    OriginView of(String origin) {
        OriginView view = views.get(origin);
        if (view != null) {
            return view;
        }
        if (views.size() >= MAX_ENTRIES) {
            views.clear();
        }
        return views.computeIfAbsent(origin, OriginView::new);
    }

    /**
     * The view, read again from the store when it is older than a second (one read per origin per second at most, on
     * the calling thread). A read that fails keeps the old view for another second.
     */
    OriginView fresh(String origin) {
        OriginView view = of(origin);
        if (view.isStale(System.nanoTime())) {
            synchronized (view) {
                if (view.isStale(System.nanoTime())) {
                    try {
                        view.update(store.circuit(origin));
                    } catch (RuntimeException e) {
                        view.touch();
                        logReadFailure(origin, e);
                    }
                }
            }
        }
        return view;
    }

    private void logReadFailure(String origin, RuntimeException e) {
        long now = System.nanoTime();
        if (now - lastErrorLogNanos > ERROR_LOG_NANOS) {
            lastErrorLogNanos = now;
            LOG.warn("cannot read the circuit of {} from the store ({}); deciding on the last known state", origin,
                    e.toString());
        }
    }
}
