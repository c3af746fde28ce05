package io.delayq.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Attempt;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.NewJob;
import io.dropwizard.jackson.Jackson;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes job records: {@code <meta JSON>\n<payload>}. The meta keys are listed in {@code lua/lib/record.lua};
 * the payload is never parsed here or in a script.
 */
final class RecordCodec {
    private final ObjectMapper mapper = Jackson.newObjectMapper();

    ObjectMapper mapper() {
        return mapper;
    }

    /**
     * The meta fields a new job carries besides state, runAt and createdAt (which the script adds), as JSON text
     * without braces. Defaults are left out to keep the record small.
     */
    String newJobFields(NewJob job, String fingerprint) {
        StringBuilder b = new StringBuilder(64);
        b.append("\"m\":").append(job.maxAttempts()).append(",\"f\":\"").append(fingerprint).append('"');
        if (job.delivery() == Delivery.PUSH) {
            b.append(",\"l\":1");
        }
        if (job.timeoutMs() != null) {
            b.append(",\"to\":").append(job.timeoutMs());
        }
        if (job.broadcast()) {
            b.append(",\"bc\":1");
        }
        try {
            if (job.callback() != null) {
                b.append(",\"cb\":").append(mapper.writeValueAsString(mapper.writeValueAsString(job.callback())));
            }
            if (job.backoff() != null) {
                b.append(",\"b\":").append(mapper.writeValueAsString(mapper.writeValueAsString(job.backoff())));
            }
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode job " + job.ref() + ": " + e.getOriginalMessage(), e);
        }
        return b.toString();
    }

    /** The job as just created by the enqueue script. */
    Job created(NewJob job, long runAt, long createdAt) {
        return new Job(job.topic(), job.id(), job.payload(), runAt, JobState.SCHEDULED, 0, job.maxAttempts(),
                job.backoff(), job.callback(), job.timeoutMs(), job.broadcast(), job.delivery(), createdAt, null, null,
                List.of());
    }

    Job decode(String topic, String id, String record) {
        int newline = record.indexOf('\n');
        if (newline < 0) {
            throw new IllegalStateException("job " + topic + "/" + id + " has a malformed record in Redis (no meta line)");
        }
        try {
            JsonNode m = mapper.readTree(record.substring(0, newline));
            String payload = record.substring(newline + 1);
            return new Job(topic, id, payload,
                    m.path("r").asLong(),
                    state(m.path("s").asText("S")),
                    m.path("a").asInt(0),
                    m.path("m").asInt(1),
                    m.has("b") ? mapper.readValue(m.get("b").asText(), Backoff.class) : null,
                    m.has("cb") ? mapper.readValue(m.get("cb").asText(), Callback.class) : null,
                    m.has("to") ? m.get("to").asLong() : null,
                    m.path("bc").asInt(0) == 1,
                    m.path("l").asInt(0) == 1 ? Delivery.PUSH : Delivery.PULL,
                    m.path("c").asLong(),
                    m.has("x") ? m.get("x").asLong() : null,
                    m.has("e") ? m.get("e").asText() : null,
                    history(m.get("h")));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job " + topic + "/" + id + " has a malformed record in Redis: " + e.getOriginalMessage(), e);
        }
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
                    a.has("c") ? a.get("c").asInt() : null));
        }
        return attempts;
    }

    private static JobState state(String code) {
        return switch (code) {
            case "S" -> JobState.SCHEDULED;
            case "L" -> JobState.LEASED;
            case "Y" -> JobState.SUCCEEDED;
            case "D" -> JobState.DEAD;
            case "C" -> JobState.CANCELLED;
            default -> throw new IllegalStateException("unknown job state code '" + code + "' in a Redis record");
        };
    }
}
