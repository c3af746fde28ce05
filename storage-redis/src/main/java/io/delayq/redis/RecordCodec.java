package io.delayq.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Attempt;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.core.DeadCause;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.NewJob;
import io.delayq.core.TraceContext;
import io.dropwizard.jackson.Jackson;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads and writes job records: {@code <head>\n<payload>}, the head as described in {@code lua/lib/record.lua}; the
 * payload is never parsed here or in a script.
 */
final class RecordCodec {
    private static final int CALLBACKS_KEPT = 10_000;
    private final ObjectMapper mapper = Jackson.newObjectMapper();
    /**
     * Callbacks as read, by their stored JSON text: the jobs of a topic mostly share one, and parsing it was a second
     * Jackson parse for every record a reserve returned. Bounded: emptied when full. (Header values are in it as they
     * are in the records themselves; nothing here is shown anywhere.)
     */
    private final ConcurrentHashMap<String, Callback> callbacks = new ConcurrentHashMap<>();

    ObjectMapper mapper() {
        return mapper;
    }

    /**
     * The fingerprint as stored: the first 48 bits of {@link NewJob#fingerprint()} in base64url (8 characters), enough
     * to tell a repeat from a conflicting reuse of an id while keeping the record small.
     */
    static String storedFingerprint(NewJob job) {
        byte[] bytes = HexFormat.of().parseHex(job.fingerprint().substring(0, 12));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The head of a new job up to createdAt: state S (+ P for the push lane) and maxAttempts in base 36. */
    static String newJobHeadStart(NewJob job) {
        return (job.delivery() == Delivery.PUSH ? "SP|" : "S|") + Integer.toString(job.maxAttempts(), 36) + "|";
    }

    /** The head of a new job after runAt: the fingerprint, and the rare fields as JSON when it has any. */
    String newJobHeadEnd(NewJob job) {
        String fingerprint = "|" + storedFingerprint(job);
        if (job.timeoutMs() == null && !job.broadcast() && job.callback() == null && job.backoff() == null
                && job.trace() == null && job.onDead() == null && job.expiresAtMs() == null) {
            return fingerprint;
        }
        StringBuilder b = new StringBuilder(80).append(fingerprint).append("|{");
        try {
            if (job.timeoutMs() != null) {
                b.append("\"to\":").append(job.timeoutMs()).append(',');
            }
            if (job.broadcast()) {
                b.append("\"bc\":1,");
            }
            if (job.callback() != null) {
                b.append("\"cb\":").append(mapper.writeValueAsString(mapper.writeValueAsString(job.callback()))).append(',');
            }
            if (job.backoff() != null) {
                b.append("\"b\":").append(mapper.writeValueAsString(mapper.writeValueAsString(job.backoff()))).append(',');
            }
            if (job.onDead() != null) {
                b.append("\"od\":").append(mapper.writeValueAsString(mapper.writeValueAsString(job.onDead()))).append(',');
            }
            if (job.expiresAtMs() != null) {
                b.append("\"ex\":").append(job.expiresAtMs()).append(',');
            }
            if (job.trace() != null) {
                b.append("\"tp\":").append(mapper.writeValueAsString(job.trace().traceparent())).append(',');
                if (job.trace().tracestate() != null) {
                    b.append("\"ts\":").append(mapper.writeValueAsString(job.trace().tracestate())).append(',');
                }
            }
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode job " + job.ref() + ": " + e.getOriginalMessage(), e);
        }
        b.setCharAt(b.length() - 1, '}');
        return b.toString();
    }

    /** The job as just created by the enqueue script. */
    Job created(NewJob job, long runAt, long createdAt) {
        return new Job(job.topic(), job.id(), job.payload(), runAt, JobState.SCHEDULED, 0, job.maxAttempts(),
                job.backoff(), job.callback(), job.timeoutMs(), job.broadcast(), job.delivery(), createdAt, null, null,
                List.of(), job.trace(), job.onDead(), null, job.expiresAtMs());
    }

    /** Reads a record: {@code <head>\n<payload>}, the head as described in {@code lua/lib/record.lua}. */
    Job decode(String topic, String id, String record) {
        int newline = record.indexOf('\n');
        int[] bars = new int[5];
        int found = 0;
        for (int i = 0; i < newline && found < 5; i++) {
            if (record.charAt(i) == '|') {
                bars[found++] = i;
            }
        }
        if (newline < 0 || found < 4) {
            throw new IllegalStateException("job " + topic + "/" + id + " has a malformed record in Redis");
        }
        String first = record.substring(0, bars[0]);
        boolean push = first.length() > 1 && first.charAt(1) == 'P';
        String attempts = first.substring(push ? 2 : 1);
        long maxAttempts = Long.parseLong(record.substring(bars[0] + 1, bars[1]), 36);
        long createdAt = Long.parseLong(record.substring(bars[1] + 1, bars[2]), 36);
        long runAt = Long.parseLong(record.substring(bars[2] + 1, bars[3]), 36);
        String payload = record.substring(newline + 1);
        JsonNode m = null;
        if (found == 5) {
            try {
                m = mapper.readTree(record.substring(bars[4] + 1, newline));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("job " + topic + "/" + id + " has a malformed record in Redis: "
                        + e.getOriginalMessage(), e);
            }
        }
        try {
            return new Job(topic, id, payload, runAt,
                    state(first.charAt(0)),
                    attempts.isEmpty() ? 0 : Integer.parseInt(attempts, 36),
                    (int) maxAttempts,
                    m != null && m.has("b") ? mapper.readValue(m.get("b").asText(), Backoff.class) : null,
                    m != null && m.has("cb") ? callback(m.get("cb").asText()) : null,
                    m != null && m.has("to") ? m.get("to").asLong() : null,
                    m != null && m.path("bc").asInt(0) == 1,
                    push ? Delivery.PUSH : Delivery.PULL,
                    createdAt,
                    m != null && m.has("x") ? m.get("x").asLong() : null,
                    m != null && m.has("e") ? m.get("e").asText() : null,
                    m == null ? List.of() : history(m.get("h")),
                    m != null && m.has("tp") ? new TraceContext(m.get("tp").asText(),
                            m.has("ts") ? m.get("ts").asText() : null) : null,
                    m != null && m.has("od") ? callback(m.get("od").asText()) : null,
                    m != null && m.has("dc") ? DeadCause.ofStored(m.get("dc").asText()) : null,
                    m != null && m.has("ex") ? m.get("ex").asLong() : null);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job " + topic + "/" + id + " has a malformed record in Redis: " + e.getOriginalMessage(), e);
        }
    }

    private Callback callback(String json) throws JsonProcessingException {
        Callback known = callbacks.get(json);
        if (known != null) {
            return known;
        }
        Callback parsed = mapper.readValue(json, Callback.class);
        if (callbacks.size() >= CALLBACKS_KEPT) {
            callbacks.clear();
        }
        callbacks.put(json, parsed);
        return parsed;
    }

    String toJson(Job job) {
        try {
            return mapper.writeValueAsString(job);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode job " + job.ref() + ": " + e.getOriginalMessage(), e);
        }
    }

    Job jobFromJson(String json) {
        try {
            return mapper.readValue(json, Job.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("malformed broadcast job: " + e.getOriginalMessage(), e);
        }
    }

    private static List<Attempt> history(JsonNode h) {
        if (h == null || !h.isArray()) {
            return List.of();
        }
        List<Attempt> attempts = new ArrayList<>(h.size());
        for (JsonNode a : h) {
            attempts.add(new Attempt(a.path("n").asInt(), a.path("t").asLong(),
                    a.has("e") ? a.get("e").asText() : null,
                    a.has("c") ? a.get("c").asInt() : null,
                    // h=1: a hold (an open circuit postponed the job), not an attempt; see nack.lua
                    a.path("h").asInt(0) == 1));
        }
        return attempts;
    }

    private static JobState state(char code) {
        return switch (code) {
            case 'S' -> JobState.SCHEDULED;
            case 'L' -> JobState.LEASED;
            case 'Y' -> JobState.SUCCEEDED;
            case 'D' -> JobState.DEAD;
            case 'C' -> JobState.CANCELLED;
            default -> throw new IllegalStateException("unknown job state code '" + code + "' in a Redis record");
        };
    }
}
