package io.delayq.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.core.Attempt;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.core.DeadCause;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.TraceContext;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Locale;

/** Reads a {@code delayq_jobs} row (or a statement's {@code RETURNING j.*}) into a {@link Job}. */
final class JobRowMapper implements RowMapper<Job> {
    private static final TypeReference<List<Attempt>> HISTORY = new TypeReference<>() { };
    private final ObjectMapper mapper;
    /** Resolved once: {@code readValue(text, TypeReference)} resolves the type anew on every row. */
    private final ObjectReader historyReader;

    JobRowMapper(ObjectMapper mapper) {
        this.mapper = mapper;
        this.historyReader = mapper.readerFor(HISTORY);
    }

    /**
     * Where each column of a job row is in one result set: looked up by name once per result set, not for every row
     * (each lookup a hash probe in the driver, about a sixth of the client's CPU when reading a reserve's rows).
     */
    static final class Columns {
        final int topic;
        final int id;
        final int payload;
        final int runAt;
        final int state;
        final int attempts;
        final int maxAttempts;
        final int backoff;
        final int callback;
        final int timeoutMs;
        final int broadcast;
        final int push;
        final int createdAt;
        final int finishedAt;
        final int lastError;
        final int history;
        final int traceparent;
        final int tracestate;
        final int onDead;
        /** -1 where a statement's rows do not have the column (they all do from V19 on). */
        final int expiresAt;
        final int deadCause;

        Columns(ResultSet rs) throws SQLException {
            topic = rs.findColumn("topic");
            id = rs.findColumn("id");
            payload = rs.findColumn("payload");
            runAt = rs.findColumn("run_at");
            state = rs.findColumn("state");
            attempts = rs.findColumn("attempts");
            maxAttempts = rs.findColumn("max_attempts");
            backoff = rs.findColumn("backoff");
            callback = rs.findColumn("callback");
            timeoutMs = rs.findColumn("timeout_ms");
            broadcast = rs.findColumn("broadcast");
            push = rs.findColumn("push");
            createdAt = rs.findColumn("created_at");
            finishedAt = rs.findColumn("finished_at");
            lastError = rs.findColumn("last_error");
            history = rs.findColumn("history");
            traceparent = rs.findColumn("traceparent");
            tracestate = rs.findColumn("tracestate");
            onDead = rs.findColumn("on_dead");
            expiresAt = optionalColumn(rs, "expires_at");
            deadCause = optionalColumn(rs, "dead_cause");
        }

        private static int optionalColumn(ResultSet rs, String name) {
            try {
                return rs.findColumn(name);
            } catch (SQLException absent) {
                return -1;
            }
        }
    }

    /** For JDBI: the columns are looked up once per result set. */
    @Override
    public RowMapper<Job> specialize(ResultSet rs, StatementContext ctx) throws SQLException {
        Columns columns = new Columns(rs);
        return (row, c) -> map(row, columns);
    }

    @Override
    public Job map(ResultSet rs, StatementContext ctx) throws SQLException {
        return map(rs, new Columns(rs));
    }

    /** The current row of {@code rs}, whose columns are at {@code c}. */
    Job map(ResultSet rs, Columns c) throws SQLException {
        String topic = rs.getString(c.topic);
        String id = rs.getString(c.id);
        try {
            return new Job(topic, id,
                    rs.getString(c.payload),
                    millis(rs, c.runAt),
                    JobState.valueOf(rs.getString(c.state).toUpperCase(Locale.ROOT)),
                    rs.getInt(c.attempts),
                    rs.getInt(c.maxAttempts),
                    json(rs.getString(c.backoff), Backoff.class),
                    json(rs.getString(c.callback), Callback.class),
                    (Long) rs.getObject(c.timeoutMs),
                    rs.getBoolean(c.broadcast),
                    rs.getBoolean(c.push) ? Delivery.PUSH : Delivery.PULL,
                    millis(rs, c.createdAt),
                    nullableMillis(rs, c.finishedAt),
                    rs.getString(c.lastError),
                    history(rs.getString(c.history)),
                    trace(rs.getString(c.traceparent), rs.getString(c.tracestate)),
                    json(rs.getString(c.onDead), Callback.class),
                    c.deadCause < 0 ? null : DeadCause.ofStored(rs.getString(c.deadCause)),
                    c.expiresAt < 0 ? null : nullableMillis(rs, c.expiresAt));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job " + topic + "/" + id + " has a malformed row in delayq_jobs: "
                    + e.getOriginalMessage(), e);
        }
    }

    /** A row as a JSON object of its columns' text, for an operator to read when the row cannot be decoded. */
    String rawRow(ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        ObjectNode row = mapper.createObjectNode();
        for (int c = 1; c <= meta.getColumnCount(); c++) {
            row.put(meta.getColumnLabel(c), rs.getString(c));
        }
        return row.toString();
    }

    static long millis(ResultSet rs, String column) throws SQLException {
        return millis(rs, rs.findColumn(column));
    }

    static long millis(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant().toEpochMilli();
    }

    private static Long nullableMillis(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant().toEpochMilli();
    }

    static Long nullableMillis(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant().toEpochMilli();
    }

    /** The stored trace context: the service validated it on the way in, so a row holds a valid one or none. */
    private static TraceContext trace(String traceparent, String tracestate) {
        return traceparent == null ? null : new TraceContext(traceparent, tracestate);
    }

    /** A job not attempted yet (every job a drain leases) has {@code []}: no parser needed. */
    private List<Attempt> history(String text) throws JsonProcessingException {
        return "[]".equals(text) ? List.of() : historyReader.readValue(text);
    }

    private <T> T json(String text, Class<T> type) throws JsonProcessingException {
        return text == null ? null : mapper.readValue(text, type);
    }
}
