package io.delayq.service.delivery;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Store failures seen by the engine's background work (reserve, expire, sweep, nack): one warning per 10 s, the rest
 * at debug, so that a store outage of minutes does not write thousands of identical lines.
 */
final class StoreErrorLog {
    private static final Logger LOG = LoggerFactory.getLogger(StoreErrorLog.class);
    private static final long QUIET_MS = 10_000;

    private volatile long lastWarning;

    /** @param what what could not be done, as in "delivery engine could not {what}" */
    void log(String what, RuntimeException e) {
        long now = System.currentTimeMillis();
        if (now - lastWarning > QUIET_MS) {
            lastWarning = now;
            LOG.warn("delivery engine could not {}: {}", what, e.toString());
        } else {
            LOG.debug("delivery engine could not {}", what, e);
        }
    }
}
