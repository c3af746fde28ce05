package io.delayq.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.core.Attempt;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
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

    JobRowMapper(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public Job map(ResultSet rs, StatementContext ctx) throws SQLException {
        String topic = rs.getString("topic");
        String id = rs.getString("id");
        try {
            return new Job(topic, id,
                    rs.getString("payload"),
                    millis(rs, "run_at"),
                    JobState.valueOf(rs.getString("state").toUpperCase(Locale.ROOT)),
                    rs.getInt("attempts"),
                    rs.getInt("max_attempts"),
                    json(rs.getString("backoff"), Backoff.class),
                    json(rs.getString("callback"), Callback.class),
                    (Long) rs.getObject("timeout_ms"),
                    rs.getBoolean("broadcast"),
                    rs.getBoolean("push") ? Delivery.PUSH : Delivery.PULL,
                    millis(rs, "created_at"),
                    nullableMillis(rs, "finished_at"),
                    rs.getString("last_error"),
                    mapper.readValue(rs.getString("history"), HISTORY),
                    trace(rs.getString("traceparent"), rs.getString("tracestate")),
                    json(rs.getString("on_dead"), Callback.class));
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

    /** The lease token of a leased row. */
    static long token(ResultSet rs) throws SQLException {
        return rs.getLong("lease_token");
    }

    static long millis(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant().toEpochMilli();
    }

    static Long nullableMillis(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant().toEpochMilli();
    }

    /** The stored trace context: the service validated it on the way in, so a row holds a valid one or none. */
    private static TraceContext trace(String traceparent, String tracestate) {
        return traceparent == null ? null : new TraceContext(traceparent, tracestate);
    }

    private <T> T json(String text, Class<T> type) throws JsonProcessingException {
        return text == null ? null : mapper.readValue(text, type);
    }
}
