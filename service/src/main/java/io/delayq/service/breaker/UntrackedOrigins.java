package io.delayq.service.breaker;

import com.codahale.metrics.Meter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Failures of origins the store would not give a circuit because {@code maxOrigins} origins have one (issue 26,
 * finding 5): counted ({@code delayq.breaker.untracked-origins}, {@code delayq_breaker_untracked_origins_total}) and
 * logged at WARN at most once a minute, with how many since the last line. Such an origin's callbacks go on as if it
 * had no breaker: its failures count toward nothing and its jobs are never held.
 */
final class UntrackedOrigins {
    private static final Logger LOG = LoggerFactory.getLogger(UntrackedOrigins.class);
    static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Meter meter;
    private final int maxOrigins;
    private final AtomicLong lastLogNanos = new AtomicLong(System.nanoTime() - LOG_EVERY_NANOS);
    private final AtomicLong sinceLastLog = new AtomicLong();

    UntrackedOrigins(Meter meter, int maxOrigins) {
        this.meter = meter;
        this.maxOrigins = maxOrigins;
    }

    void failed(String origin) {
        meter.mark();
        long since = sinceLastLog.incrementAndGet();
        long now = System.nanoTime();
        long last = lastLogNanos.get();
        if (now - last >= LOG_EVERY_NANOS && lastLogNanos.compareAndSet(last, now)) {
            sinceLastLog.addAndGet(-since);
            LOG.warn("circuit breaker: {} origins have a circuit (delivery.breaker.maxOrigins); failed callbacks to"
                    + " new origins are not tracked ({} since the last such line, the latest to {}). Closed circuits"
                    + " idle for delivery.breaker.idleExpiry are forgotten; see GET /v1/admin/circuits", maxOrigins,
                    since, origin);
        }
    }
}
