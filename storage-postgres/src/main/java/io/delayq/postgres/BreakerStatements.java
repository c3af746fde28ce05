package io.delayq.postgres;

import io.delayq.core.breaker.OriginCircuit;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.List;
import java.util.Optional;

/**
 * The circuit breakers' statements, one each, in {@code io/delayq/postgres/sql/breaker_*.sql} ({@link StatementFiles};
 * the writes mirror the Redis store's {@code breaker_*.lua}): each reads or changes one origin's row of
 * {@code delayq_circuits} (V9) atomically, by the database's clock. Each file's header names its binds and what it
 * returns; rows are read by {@link CircuitRowMapper}.
 */
interface BreakerStatements {

    @SqlQuery("breaker_failure")
    OriginCircuit recordFailure(@Bind("origin") String origin, @Bind("threshold") int threshold,
                                @Bind("probeIntervalMs") long probeIntervalMs,
                                @Bind("maxProbeIntervalMs") long maxProbeIntervalMs);

    /** Empty for an origin without a row. */
    @SqlQuery("breaker_success")
    Optional<OriginCircuit> recordSuccess(@Bind("origin") String origin);

    /** Present (true) for the one caller that claimed the probe. */
    @SqlQuery("breaker_probe")
    Optional<Boolean> claimProbe(@Bind("origin") String origin);

    @SqlUpdate("breaker_held")
    void addHeld(@Bind("origin") String origin, @Bind("delta") long delta);

    @SqlQuery("breaker_circuit")
    Optional<OriginCircuit> circuit(@Bind("origin") String origin);

    @SqlQuery("breaker_circuits")
    List<OriginCircuit> circuits();
}
