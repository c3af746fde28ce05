package io.delayq.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Delivery;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.TopicScope;
import io.delayq.core.schedule.Fire;
import io.delayq.core.schedule.ScheduleRecord;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.postgres.ScheduleStatements.FireRow;
import org.jdbi.v3.core.Jdbi;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Core's {@link ScheduleStore} on PostgreSQL: one row of {@code delayq_schedules} (V17) per schedule; each write one
 * statement ({@code schedule_put.sql}, {@code schedule_fire.sql}, {@code schedule_delete.sql}, twins of storage-redis's
 * scripts). A fire's compare-and-set of the cursor and its job's insert are one statement, so one transaction; the due
 * read is a range scan of a partial index on the due time.
 */
final class PostgresScheduleStore implements ScheduleStore {
    private final ScheduleStatements statements;
    private final KnownTopics topics;
    private final ObjectMapper mapper;

    PostgresScheduleStore(Jdbi jdbi, KnownTopics topics, ObjectMapper mapper) {
        this.topics = topics;
        this.mapper = mapper;
        jdbi.registerRowMapper(ScheduleRecord.class, (rs, ctx) -> record(rs));
        jdbi.registerRowMapper(FireRow.class, (rs, ctx) -> new FireRow(rs.getLong("applied") == 1,
                rs.getBoolean("found"), rs.getLong("created") == 1));
        this.statements = jdbi.onDemand(ScheduleStatements.class);
    }

    @Override
    public ScheduleRecord put(String topic, String name, String definition, Long dueAtMs) {
        check(topic, name);
        return PostgresCalls.call("put a schedule", () -> statements.put(topic, name, definition, dueAtMs));
    }

    @Override
    public Optional<ScheduleRecord> get(String topic, String name) {
        check(topic, name);
        return PostgresCalls.call("read a schedule", () -> statements.get(topic, name));
    }

    @Override
    public List<ScheduleRecord> list(String topic, String afterName, int limit) {
        JobRules.checkTopic(topic);
        return PostgresCalls.call("list schedules",
                () -> statements.list(topic, afterName == null ? "" : afterName, limit));
    }

    /** One statement, {@code schedule_count.sql}: a range of V22's index by topic. */
    @Override
    public Map<String, Long> counts(String prefix, String after, int limit) {
        JobStore.requirePrefix(prefix);
        String upper = TopicScope.successor(prefix);
        Map<String, Long> out = new LinkedHashMap<>();
        if (upper == null || limit <= 0) {
            return out; // only the last code point there is: no topic (ASCII, JobRules) starts with it
        }
        for (ScheduleStatements.TopicCount row : PostgresCalls.call("count schedules",
                () -> statements.counts(prefix, upper, after == null ? "" : after, limit))) {
            out.put(row.topic(), row.schedules());
        }
        return out;
    }

    @Override
    public boolean delete(String topic, String name) {
        check(topic, name);
        return PostgresCalls.call("delete a schedule", () -> statements.delete(topic, name)) == 1;
    }

    @Override
    public List<ScheduleRecord> due(long nowMs, int limit) {
        return PostgresCalls.call("read due schedules", () -> statements.due(nowMs, limit));
    }

    @Override
    public AdvanceResult advance(String topic, String name, long expectedCursorMs, long newCursorMs, Long dueAtMs,
                                 Fire fire, NewJob job) {
        return fire(topic, name, true, expectedCursorMs, newCursorMs, dueAtMs, fire, job);
    }

    @Override
    public AdvanceResult runNow(String topic, String name, Fire fire, NewJob job) {
        return fire(topic, name, false, 0, 0, null, fire, job);
    }

    private AdvanceResult fire(String topic, String name, boolean cas, long expected, long cursor, Long dueAtMs,
                               Fire fire, NewJob job) {
        check(topic, name);
        if (job != null) {
            JobRules.checkId(job.id());
            if (!job.topic().equals(topic)) {
                throw new IllegalArgumentException("a schedule's job goes to its own topic " + topic);
            }
            topics.register(List.of(job));
        }
        String fireJson = fire == null ? null
                : json(new Fire(fire.fireAtMs(), job == null ? null : job.id(), fire.kind(), fire.missed(),
                fire.recordedMs()));
        FireRow row = PostgresCalls.call("fire a schedule", () -> job == null
                ? statements.fire(topic, name, cas, expected, cursor, dueAtMs, fireJson, false, "", false, 0L, null,
                1, "", null, false, null, null, "", null, null, null)
                : statements.fire(topic, name, cas, expected, cursor, dueAtMs, fireJson, true, job.id(),
                job.delivery() == Delivery.PUSH, job.delayMs(), job.runAtMs(), job.maxAttempts(), job.fingerprint(),
                job.timeoutMs(), job.broadcast(), jsonOrNull(job.callback()), jsonOrNull(job.backoff()),
                job.payload(), job.trace() == null ? null : job.trace().traceparent(),
                job.trace() == null ? null : job.trace().tracestate(), jsonOrNull(job.onDead())));
        if (row.applied()) {
            return new AdvanceResult(Advance.APPLIED, job == null ? null : job.id());
        }
        return new AdvanceResult(row.found() ? Advance.CONFLICT : Advance.NOT_FOUND, null);
    }

    private ScheduleRecord record(ResultSet rs) throws SQLException {
        List<Fire> fires = new ArrayList<>();
        Array array = rs.getArray("fires");
        if (array != null) {
            for (Object one : (Object[]) array.getArray()) {
                try {
                    fires.add(mapper.readValue((String) one, Fire.class));
                } catch (JsonProcessingException e) {
                    throw new StoreException(StoreStatus.UNAVAILABLE, "a fire of schedule '" + rs.getString("name")
                            + "' cannot be read: " + e.getOriginalMessage());
                }
            }
        }
        long due = rs.getLong("due_at_ms");
        Long dueAt = rs.wasNull() ? null : due;
        return new ScheduleRecord(rs.getString("topic"), rs.getString("name"), rs.getString("definition"),
                rs.getLong("cursor_ms"), dueAt, rs.getLong("created_at_ms"), rs.getLong("updated_at_ms"), fires);
    }

    private String jsonOrNull(Object value) {
        return value == null ? null : json(value);
    }

    private String json(Object value) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode " + value.getClass().getSimpleName() + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    private static void check(String topic, String name) {
        JobRules.checkTopic(topic);
        if (name == null || name.isEmpty() || name.length() > JobRules.MAX_NAME_CHARS) {
            throw new IllegalArgumentException("a schedule's name is 1 to " + JobRules.MAX_NAME_CHARS + " characters");
        }
    }
}
