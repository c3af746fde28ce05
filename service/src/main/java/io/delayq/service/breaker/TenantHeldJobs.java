package io.delayq.service.breaker;

import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.service.auth.Scope;

import java.util.Map;

/**
 * How many of the jobs held for an origin are a tenant's own (issue "many teams"): the store's counts by topic
 * ({@link CircuitBreakers#heldByTopic}) over the topics the scope sees. An origin's circuit is one shared fact, but its
 * held count is of every tenant's jobs together, and how many jobs another tenant has waiting on an origin is that
 * tenant's business. One store read per circuit, none for a circuit holding no jobs at all.
 */
final class TenantHeldJobs {
    private TenantHeldJobs() {
    }

    static long of(Scope scope, CircuitBreakers circuits, OriginCircuit circuit) {
        if (circuit.heldJobs() == 0) {
            return 0; // nobody's jobs are held there, so neither are the scope's
        }
        long own = 0;
        for (Map.Entry<String, Long> topic : circuits.heldByTopic(circuit.origin()).entrySet()) {
            if (scope.canSee(topic.getKey())) {
                own += topic.getValue();
            }
        }
        return own;
    }
}
