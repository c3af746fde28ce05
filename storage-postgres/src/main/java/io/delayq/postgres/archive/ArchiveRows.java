package io.delayq.postgres.archive;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.delayq.core.Attempt;
import io.delayq.core.Job;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.FailureGroup;
import io.delayq.core.archive.FailureSignature;
import org.jdbi.v3.core.Jdbi;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * How the archive's rows hold a job: its JSON form (the Jackson mapping the rest of delayq uses, so a new {@link Job}
 * field is archived without a migration) in the {@code job} column, without the payload, which goes to the
 * {@code payload} column as the producer's exact text; jsonb would re-encode it (key order, whitespace, numbers).
 */
final class ArchiveRows {
    private static final TypeReference<List<DeadLetter.Replay>> REPLAYS = new TypeReference<>() { };
    private static final String PAYLOAD = "payload";

    private final ObjectMapper mapper;

    ArchiveRows(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    void register(Jdbi jdbi) {
        jdbi.registerRowMapper(Job.class, (rs, ctx) -> job(rs.getString("job"), rs.getString(PAYLOAD)));
        jdbi.registerRowMapper(DeadLetter.class, (rs, ctx) -> deadLetter(rs));
        jdbi.registerRowMapper(FailureGroup.class, (rs, ctx) -> new FailureGroup(
                new FailureSignature(rs.getString("signature_id"), rs.getString("signature_kind"),
                        rs.getString("signature_message"), rs.getString("signature_host")),
                rs.getLong("count"), rs.getLong("last_hour"), rs.getLong("first_dead_at_ms"),
                rs.getLong("last_dead_at_ms"), deadLetter(rs)));
        jdbi.registerRowMapper(UnsignedLetter.class, (rs, ctx) -> new UnsignedLetter(rs.getString("key"),
                rs.getString("job"), rs.getString(PAYLOAD)));
    }

    private DeadLetter deadLetter(ResultSet rs) throws SQLException {
        String key = rs.getString("key");
        try {
            return new DeadLetter(key, job(rs.getString("job"), rs.getString(PAYLOAD)), rs.getLong("dead_at_ms"),
                    rs.getInt("replay_count"), mapper.readValue(rs.getString("replays"), REPLAYS), notice(rs));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("dead letter " + key + " has replays this version cannot read: "
                    + e.getOriginalMessage(), e);
        }
    }

    /** The letter's notice from V11's columns (every statement reading letters selects them), or null for none. */
    private static DeadNotice notice(ResultSet rs) throws SQLException {
        String state = rs.getString("notice_state");
        if (state == null) {
            return null;
        }
        return new DeadNotice(DeadNotice.State.valueOf(state), rs.getInt("notice_attempts"),
                rs.getLong("notice_next_attempt_at_ms"), rs.getObject("notice_delivered_at_ms", Long.class),
                rs.getString("notice_last_error"), rs.getObject("notice_last_status", Integer.class));
    }

    /**
     * A notice's error text as PostgreSQL can hold it: a NUL (an answer's body may carry one) becomes U+FFFD, as in
     * {@link #jobJson}, rather than the notice being refused.
     */
    static String noticeError(DeadNotice notice) {
        return notice.lastError() == null ? null : notice.lastError().replace('\0', '\uFFFD');
    }

    /** A letter archived without a failure signature, as stored: read in Java to compute it. */
    record UnsignedLetter(String key, String jobJson, String payload) {
    }

    /**
     * What the dashboard queries of a dead job (V5's columns), as PostgreSQL can hold it: its failure signature and
     * its last attempt's HTTP status. A NUL (possible in a Redis store's error text) becomes U+FFFD, as in
     * {@link #jobJson}; the id is computed from the text as it was.
     */
    record Signed(String id, String kind, String message, String host, Integer httpStatus) {
        static Signed of(Job job) {
            FailureSignature s = FailureSignature.of(job);
            List<Attempt> history = job.history();
            Integer status = history == null || history.isEmpty() ? null : history.get(history.size() - 1).httpStatus();
            return new Signed(s.id(), noNul(s.kind()), noNul(s.message()), noNul(s.host()), status);
        }

        private static String noNul(String text) {
            return text.replace('\0', '\uFFFD');
        }
    }

    /**
     * The {@code job} column's JSON: the job without its payload. PostgreSQL holds no NUL character in text or jsonb,
     * and an error text from a Redis store may carry one: it is archived as U+FFFD rather than refused.
     */
    String jobJson(Job job) {
        ObjectNode node = mapper.valueToTree(job);
        node.remove(PAYLOAD);
        String json = node.toString();
        if (json.contains("\\u0000")) {
            replaceNul(node);
            json = node.toString();
        }
        return json;
    }

    private static void replaceNul(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                if (field.getValue().isTextual()) {
                    field.setValue(TextNode.valueOf(field.getValue().textValue().replace('\0', '\uFFFD')));
                } else {
                    replaceNul(field.getValue());
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                if (array.get(i).isTextual()) {
                    array.set(i, TextNode.valueOf(array.get(i).textValue().replace('\0', '\uFFFD')));
                } else {
                    replaceNul(array.get(i));
                }
            }
        }
    }

    String replayJson(DeadLetter.Replay replay) {
        try {
            return mapper.writeValueAsString(replay);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode replay " + replay + ": " + e.getOriginalMessage(), e);
        }
    }

    Job job(String jobJson, String payload) {
        try {
            ObjectNode node = (ObjectNode) mapper.readTree(jobJson);
            node.put(PAYLOAD, payload);
            return mapper.treeToValue(node, Job.class);
        } catch (JsonProcessingException | ClassCastException e) {
            throw new IllegalStateException("an archived job cannot be read by this version of delayq: "
                    + e.getMessage(), e);
        }
    }
}
