package io.delayq.service.breaker;

import com.codahale.metrics.health.HealthCheck;
import io.delayq.core.breaker.OriginCircuit;

import java.util.List;

/**
 * {@value #NAME}: the callback origins whose circuit is open. Always healthy — an unreachable receiver is not a fault
 * of delayq, and an unhealthy check would make a load balancer take working instances out — but the message says
 * {@code degraded: circuit open for <origin> since <time> (<n> jobs held)} for each open origin (the first
 * {@value #NAMED}, then how many more), so that a monitor reading messages sees it.
 */
public final class CallbackEndpointsHealthCheck extends HealthCheck {
    public static final String NAME = "callback-endpoints";
    static final int NAMED = 5;

    private final CircuitSnapshot snapshot;

    public CallbackEndpointsHealthCheck(CircuitSnapshot snapshot) {
        this.snapshot = snapshot;
    }

    @Override
    protected Result check() {
        CircuitSnapshot.Reading reading = snapshot.read();
        if (!snapshot.supported()) {
            return Result.healthy("no circuit breakers: %s", reading.error());
        }
        String stale = reading.error() == null ? "" : " (as last read: the circuits cannot be read now, "
                + reading.error() + ")";
        List<OriginCircuit> open = reading.circuits().stream().filter(OriginCircuit::isOpen).toList();
        if (open.isEmpty()) {
            return Result.healthy("no circuit open (%d origins with a record)%s", reading.total(), stale);
        }
        StringBuilder message = new StringBuilder("degraded: ");
        for (int i = 0; i < Math.min(NAMED, open.size()); i++) {
            OriginCircuit c = open.get(i);
            if (i > 0) {
                message.append("; ");
            }
            message.append("circuit open for ").append(c.origin()).append(" since ")
                    .append(HoldReasons.time(c.openedAt())).append(" (").append(c.heldJobs()).append(" jobs held)");
        }
        if (open.size() > NAMED) {
            message.append("; and ").append(open.size() - NAMED).append(" more open circuits");
        }
        return Result.healthy(message.append(stale).toString());
    }
}
