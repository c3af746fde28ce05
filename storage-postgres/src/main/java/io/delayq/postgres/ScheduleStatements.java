package io.delayq.postgres;

import io.delayq.core.schedule.ScheduleRecord;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

import java.util.List;
import java.util.Optional;

/**
 * The recurring schedules' statements ({@code delayq_schedules}, V17), in {@code io/delayq/postgres/sql/}
 * ({@link StatementFiles}), twins of storage-redis's {@code schedule_*.lua} for the writes.
 */
interface ScheduleStatements {

    @SqlQuery("schedule_put")
    ScheduleRecord put(@Bind("topic") String topic, @Bind("name") String name, @Bind("definition") String definition,
                       @Bind("dueAtMs") Long dueAtMs);

    @SqlQuery("schedule_get")
    Optional<ScheduleRecord> get(@Bind("topic") String topic, @Bind("name") String name);

    @SqlQuery("schedule_list")
    List<ScheduleRecord> list(@Bind("topic") String topic, @Bind("afterName") String afterName,
                              @Bind("limit") int limit);

    @SqlQuery("schedule_due")
    List<ScheduleRecord> due(@Bind("nowMs") long nowMs, @Bind("limit") int limit);

    /** {@code schedule_count.sql}'s rows. */
    record TopicCount(String topic, long schedules) {
    }

    /** {@code after} {@code ""} from the first; {@code upper} as {@code topics_starting_with.sql}'s. */
    @SqlQuery("schedule_count")
    @RegisterConstructorMapper(TopicCount.class)
    List<TopicCount> counts(@Bind("prefix") String prefix, @Bind("upper") String upper, @Bind("after") String after,
                            @Bind("limit") int limit);

    @SqlQuery("schedule_delete")
    int delete(@Bind("topic") String topic, @Bind("name") String name);

    /** {@code schedule_fire.sql}'s one row. */
    record FireRow(boolean applied, boolean found, boolean created) {
    }

    @SqlQuery("schedule_fire")
    FireRow fire(@Bind("topic") String topic, @Bind("name") String name, @Bind("cas") boolean cas,
                             @Bind("expectedCursor") long expectedCursor, @Bind("newCursor") long newCursor,
                             @Bind("dueAtMs") Long dueAtMs, @Bind("fire") String fire, @Bind("hasJob") boolean hasJob,
                             @Bind("id") String id, @Bind("push") boolean push, @Bind("delayMs") Long delayMs,
                             @Bind("runAtMs") Long runAtMs, @Bind("maxAttempts") int maxAttempts,
                             @Bind("fingerprint") String fingerprint, @Bind("timeoutMs") Long timeoutMs,
                             @Bind("broadcast") boolean broadcast, @Bind("callback") String callback,
                             @Bind("backoff") String backoff, @Bind("payload") String payload,
                             @Bind("traceparent") String traceparent, @Bind("tracestate") String tracestate,
                             @Bind("onDead") String onDead);
}
