package io.delayq.postgres;

import io.delayq.core.breaker.OriginCircuit;
import org.jdbi.v3.core.mapper.reflect.ColumnName;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.List;
import java.util.Optional;

/**
 * The circuit breakers' statements, one each, in {@code io/delayq/postgres/sql/breaker_*.sql} ({@link StatementFiles};
 * the writes mirror the Redis store's {@code breaker_*.lua}): each reads or changes one origin's row of
 * {@code delayq_circuits} (V9) atomically, by the database's clock. Each file's header names its binds and what it
 * returns; rows are read by {@link CircuitRowMapper}. Also the record of the origins each topic's jobs use,
 * {@code topic_origins*.sql} on {@code delayq_topic_origins} (V21), timed by the caller's {@code now}.
 */
interface BreakerStatements {

    /** Empty when the origin is not tracked (no row, and :maxOrigins rows exist). */
    @SqlQuery("breaker_failure")
    Optional<OriginCircuit> recordFailure(@Bind("origin") String origin, @Bind("threshold") int threshold,
                                          @Bind("probeIntervalMs") long probeIntervalMs,
                                          @Bind("maxProbeIntervalMs") long maxProbeIntervalMs,
                                          @Bind("maxOrigins") int maxOrigins);

    /** Empty for an origin without a row. */
    @SqlQuery("breaker_success")
    Optional<OriginCircuit> recordSuccess(@Bind("origin") String origin);

    /** Present (true) for the one caller that claimed the probe. */
    @SqlQuery("breaker_probe")
    Optional<Boolean> claimProbe(@Bind("origin") String origin);

    @SqlQuery("breaker_held_lock")
    Optional<String> lockCircuit(@Bind("origin") String origin);

    @SqlUpdate("breaker_held_add")
    void addHeld(@Bind("origin") String origin, @Bind("topics") String[] topics, @Bind("ids") String[] ids);

    @SqlUpdate("breaker_held_release")
    void releaseHeld(@Bind("origin") String origin, @Bind("topics") String[] topics, @Bind("ids") String[] ids);

    @SqlUpdate("breaker_held_count")
    void countHeld(@Bind("origin") String origin);

    @SqlQuery("breaker_held_jobs")
    @RegisterConstructorMapper(HeldRow.class)
    List<HeldRow> heldJobs(@Bind("origin") String origin, @Bind("limit") int limit);

    /** A row of {@code breaker_held_jobs}. */
    record HeldRow(@ColumnName("topic") String topic, @ColumnName("job_id") String jobId) {
    }

    @SqlQuery("breaker_held_by_topic")
    @RegisterConstructorMapper(TopicHeld.class)
    List<TopicHeld> heldByTopic(@Bind("origin") String origin);

    /** A row of {@code breaker_held_by_topic}. */
    record TopicHeld(@ColumnName("topic") String topic, @ColumnName("held") long held) {
    }

    @SqlQuery("breaker_circuit")
    Optional<OriginCircuit> circuit(@Bind("origin") String origin);

    @SqlQuery("breaker_circuits_page")
    List<OriginCircuit> circuits(@Bind("after") String after, @Bind("limit") int limit);

    @SqlQuery("breaker_notable")
    List<OriginCircuit> notable(@Bind("limit") int limit);

    @SqlQuery("breaker_count")
    long count();

    @SqlQuery("breaker_expire")
    int expireIdle(@Bind("idleMs") long idleMs, @Bind("max") int max);

    /** The origins of topics ({@code delayq_topic_origins}, V21; mirrors {@code topic_origins.lua}). */
    @SqlUpdate("topic_origins")
    void recordOrigins(@Bind("topics") String[] topics, @Bind("origins") String[] origins, @Bind("now") long nowMs,
                       @Bind("max") int max, @Bind("retentionMs") long retentionMs);

    @SqlQuery("topic_origins_read")
    @RegisterConstructorMapper(TopicOrigin.class)
    List<TopicOrigin> originsOf(@Bind("topics") String[] topics, @Bind("now") long nowMs,
                                @Bind("retentionMs") long retentionMs);

    /** A row of {@code topic_origins_read}. */
    record TopicOrigin(@ColumnName("topic") String topic, @ColumnName("origin") String origin) {
    }
}
