package io.delayq.service.breaker;

import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.OriginCircuit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log lines of a circuit's changes that this instance made: opened (WARN), a probe failed (INFO), closed (INFO).
 * Another instance's changes are logged there; here they only change what the engine does.
 */
final class CircuitLog {
    private static final Logger LOG = LoggerFactory.getLogger(CircuitLog.class);

    private CircuitLog() {
    }

    /**
     * @param cause what the attempt got, for the message ("could not connect …", "HTTP 503")
     * @return 1 when the circuit opened, -1 when it closed, 0 otherwise
     */
    static int changed(OriginCircuit before, OriginCircuit after, BreakerPolicy policy, String cause) {
        if (!before.isOpen() && after.isOpen()) {
            LOG.warn("circuit breaker OPEN for {} after {} consecutive failed callbacks (last: {}): its jobs are held"
                            + " without using attempts; first probe at {}", after.origin(), after.consecutiveFailures(),
                    cause, HoldReasons.time(after.nextProbeAt()));
            return 1;
        }
        if (before.isOpen() && after.isOpen()) {
            LOG.info("circuit breaker probe of {} failed ({}); still open since {}, next probe at {} ({} ms apart),"
                            + " {} jobs held", after.origin(), cause, HoldReasons.time(after.openedAt()),
                    HoldReasons.time(after.nextProbeAt()), after.probeIntervalMs(), after.heldJobs());
            return 0;
        }
        if (before.isOpen()) {
            LOG.info("circuit breaker CLOSED for {} ({}; open since {}): releasing its {} held jobs at {}/s per"
                            + " instance", after.origin(), cause, HoldReasons.time(after.openedAt()), after.heldJobs(),
                    policy.releasePerSecond());
            return -1;
        }
        return 0;
    }
}
