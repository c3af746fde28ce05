package io.delayq.postgres;

import io.delayq.core.NackOutcome;
import io.delayq.core.ReclaimedLeases;
import io.delayq.postgres.Rows.Extended;
import io.delayq.postgres.Rows.Targeted;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

import java.util.Optional;
import java.util.UUID;

/**
 * The job transitions, one statement each, in {@code io/delayq/postgres/sql/<name>.sql} ({@link StatementFiles}): the
 * counterparts of the Redis store's Lua scripts of the same names. Each file's header names its binds and what it
 * returns. {@code enqueue}, {@code reserve} and {@code ack} carry batches and run on plain JDBC
 * ({@link BatchTransitions}).
 */
interface JobTransitions {

    @SqlQuery("nack")
    NackOutcome nack(@Bind("topic") String topic, @Bind("id") String id, @Bind("token") UUID token,
                @Bind("delayMs") long delayMs, @Bind("error") String error, @Bind("httpStatus") Integer httpStatus,
                @Bind("held") boolean held, @Bind("historySize") int historySize, @Bind("cause") String cause);

    /** How many due jobs expired ({@code expire_overdue.sql}: the safety sweep). */
    @SqlQuery("expire_overdue")
    int expireOverdue(@Bind("topic") String topic, @Bind("push") boolean push, @Bind("max") int max,
                      @Bind("expiresAfterMs") long expiresAfterMs);

    @SqlQuery("extend")
    Extended extend(@Bind("topic") String topic, @Bind("id") String id, @Bind("token") UUID token,
                    @Bind("leaseMs") long leaseMs);

    /** How many leases were taken back, and how many of those expired. */
    @SqlQuery("expire")
    ReclaimedLeases expire(@Bind("topic") String topic, @Bind("max") int max, @Bind("historySize") int historySize,
               @Bind("lastAttemptRetries") int lastAttemptRetries);

    @SqlQuery("cancel")
    Optional<Targeted> cancel(@Bind("topic") String topic, @Bind("id") String id);

    @SqlQuery("reschedule")
    Optional<Targeted> reschedule(@Bind("topic") String topic, @Bind("id") String id, @Bind("delayMs") Long delayMs,
                                  @Bind("runAtMs") Long runAtMs, @Bind("historySize") int historySize);

    /** How many finished jobs were dropped. */
    @SqlQuery("trim")
    int trim(@Bind("retentionMs") long retentionMs, @Bind("batch") int batch);

    /** How many minutes of the topic history were dropped. */
    @SqlQuery("trim_history")
    int trimHistory(@Bind("retentionMs") long retentionMs, @Bind("batch") int batch);
}
