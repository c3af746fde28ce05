package io.delayq.core;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The validation rules of a job, shared by every entry point. Each check throws {@link IllegalArgumentException} with
 * a message a person can act on; the service turns it into a 4xx.
 *
 * @param maxPayloadBytes largest payload accepted, in bytes of compact JSON
 * @param maxDelayMs      how far ahead a job may be scheduled
 */
public record JobRules(int maxPayloadBytes, long maxDelayMs) {
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024;
    public static final long DEFAULT_MAX_DELAY_MS = 365L * 24 * 3600 * 1000;

    private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    public static JobRules defaults() {
        return new JobRules(DEFAULT_MAX_PAYLOAD_BYTES, DEFAULT_MAX_DELAY_MS);
    }

    public static String checkTopic(String topic) {
        if (topic == null || !TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("topic '" + topic
                    + "' is invalid: use 1 to 128 characters from A-Z, a-z, 0-9, '.', '_' and '-'");
        }
        return topic;
    }

    public static String checkId(String id) {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("job id '" + id
                    + "' is invalid: use 1 to 128 characters from A-Z, a-z, 0-9, '.', '_', ':' and '-'");
        }
        return id;
    }

    public String checkPayload(String compactJson) {
        if (compactJson == null) {
            throw new IllegalArgumentException("payload is required (any JSON value, e.g. {} or null is not allowed)");
        }
        int bytes = compactJson.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxPayloadBytes) {
            throw new IllegalArgumentException("payload is " + bytes + " bytes; the limit is " + maxPayloadBytes
                    + " bytes (maxPayloadBytes)");
        }
        return compactJson;
    }

    public long checkDelay(long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs is " + delayMs + "; it must be 0 or more");
        }
        if (delayMs > maxDelayMs) {
            throw new IllegalArgumentException("delayMs is " + delayMs + "; jobs can be scheduled at most "
                    + maxDelayMs + " ms (maxDelay) ahead");
        }
        return delayMs;
    }

    /** Checks an absolute run time against {@code nowMs}; a time in the past is allowed and means "now". */
    public long checkRunAt(long runAtMs, long nowMs) {
        if (runAtMs - nowMs > maxDelayMs) {
            throw new IllegalArgumentException("runAt is more than " + maxDelayMs + " ms (maxDelay) ahead");
        }
        return runAtMs;
    }
}
