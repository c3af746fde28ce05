package io.delayq.postgres;

import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import org.jdbi.v3.core.Jdbi;

import java.util.List;
import java.util.Objects;

/**
 * The circuits of callback origins in {@code delayq_circuits} (V9), shared by every instance on the database: each
 * call is one statement on one origin's row ({@link BreakerStatements}), timed by the database's clock, so instances
 * agree through the row and never among themselves. Failures reaching PostgreSQL are
 * {@link io.delayq.core.StoreStatus#UNAVAILABLE}, as for the store's other calls.
 */
final class PostgresCircuitBreakers implements CircuitBreakers {
    private final BreakerStatements statements;

    /** On the store's {@link Jdbi}, whose pool it shares. */
    PostgresCircuitBreakers(Jdbi jdbi) {
        jdbi.registerRowMapper(OriginCircuit.class, new CircuitRowMapper());
        this.statements = jdbi.onDemand(BreakerStatements.class);
    }

    @Override
    public OriginCircuit recordFailure(String origin, BreakerPolicy policy) {
        Objects.requireNonNull(origin, "origin");
        return PostgresCalls.call("record a failed attempt to " + origin, () -> statements.recordFailure(origin,
                policy.failureThreshold(), policy.probeIntervalMs(), policy.maxProbeIntervalMs()));
    }

    @Override
    public OriginCircuit recordSuccess(String origin) {
        Objects.requireNonNull(origin, "origin");
        return PostgresCalls.call("record a successful attempt to " + origin,
                () -> statements.recordSuccess(origin)).orElseGet(() -> OriginCircuit.closed(origin));
    }

    @Override
    public boolean claimProbe(String origin) {
        Objects.requireNonNull(origin, "origin");
        return PostgresCalls.call("claim a probe of " + origin, () -> statements.claimProbe(origin)).isPresent();
    }

    @Override
    public void addHeld(String origin, long delta) {
        Objects.requireNonNull(origin, "origin");
        if (delta == 0) {
            return; // nothing to add, and no row to create for it
        }
        PostgresCalls.call("count the jobs held for " + origin, () -> {
            statements.addHeld(origin, delta);
            return null;
        });
    }

    @Override
    public OriginCircuit circuit(String origin) {
        Objects.requireNonNull(origin, "origin");
        return PostgresCalls.call("read the circuit of " + origin, () -> statements.circuit(origin))
                .orElseGet(() -> OriginCircuit.closed(origin));
    }

    @Override
    public List<OriginCircuit> circuits() {
        return PostgresCalls.call("list the circuits", statements::circuits);
    }
}
