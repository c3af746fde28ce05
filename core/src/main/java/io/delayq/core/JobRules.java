package io.delayq.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.util.Duration;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The validation rules of a job, shared by every entry point. Each check throws {@link IllegalArgumentException} with
 * a message a person can act on; the service turns it into a 4xx. The limits are the service's {@code limits:}
 * block, and the messages name them so.
 *
 * <p>Every part of a job that a producer sizes is bounded, and so is their sum: a record within each part's limit can
 * still be too large for the store to lease in a batch or the archive to take in one document.
 *
 * @param maxPayloadBytes        largest payload accepted, in bytes of compact JSON
 * @param maxDelayMs             how far ahead a job may be scheduled, and the longest wait a backoff may ask for
 * @param maxAttempts            highest {@code maxAttempts}; also the most delays a schedule backoff may list, since a
 *                               job never waits more often than that
 * @param maxCallbackHeaders     most callback headers
 * @param maxCallbackHeaderBytes callback header names and values together, in UTF-8 bytes
 * @param maxJobBytes            the whole job: payload, topic, id, callback and backoff (as JSON) together
 */
public record JobRules(int maxPayloadBytes, long maxDelayMs, int maxAttempts, int maxCallbackHeaders,
                       int maxCallbackHeaderBytes, int maxJobBytes) {
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024;
    public static final long DEFAULT_MAX_DELAY_MS = 365L * 24 * 3600 * 1000;
    public static final int DEFAULT_MAX_ATTEMPTS = 100;
    public static final int DEFAULT_MAX_CALLBACK_HEADERS = 32;
    public static final int DEFAULT_MAX_CALLBACK_HEADER_BYTES = 8 * 1024;
    /** What a job may hold besides its payload, by default: a callback with its headers and a long backoff. */
    public static final int DEFAULT_JOB_OVERHEAD_BYTES = 64 * 1024;

    /** How much of a client's input a message quotes; the rest is counted, not echoed. */
    static final int QUOTE_CHARS = 64;

    /** The longest topic or id, in characters (all ASCII, so also in bytes). */
    public static final int MAX_NAME_CHARS = 128;
    private static final ObjectMapper JSON = Jackson.newObjectMapper();

    public JobRules {
        if (maxPayloadBytes < 1 || maxDelayMs < 1 || maxAttempts < 1 || maxCallbackHeaders < 0
                || maxCallbackHeaderBytes < 0) {
            throw new IllegalArgumentException("job limits must be positive");
        }
        if (maxJobBytes < maxPayloadBytes) {
            throw new IllegalArgumentException("limits.maxJobBytes (" + maxJobBytes
                    + ") must be at least limits.maxPayloadBytes (" + maxPayloadBytes + ")");
        }
    }

    /** These payload and delay limits, the others at their defaults. */
    public JobRules(int maxPayloadBytes, long maxDelayMs) {
        this(maxPayloadBytes, maxDelayMs, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_CALLBACK_HEADERS,
                DEFAULT_MAX_CALLBACK_HEADER_BYTES, defaultMaxJobBytes(maxPayloadBytes));
    }

    public static JobRules defaults() {
        return new JobRules(DEFAULT_MAX_PAYLOAD_BYTES, DEFAULT_MAX_DELAY_MS);
    }

    /** The whole-job limit when none is configured: the payload limit plus room for everything else. */
    public static int defaultMaxJobBytes(int maxPayloadBytes) {
        return (int) Math.min(Integer.MAX_VALUE, (long) maxPayloadBytes + DEFAULT_JOB_OVERHEAD_BYTES);
    }

    /**
     * A client's text as a message quotes it: in single quotes, and cut after {@value #QUOTE_CHARS} characters with
     * its length, so that a 100 KB field does not come back as a 100 KB error.
     */
    public static String quote(String text) {
        if (text == null) {
            return "null";
        }
        if (text.length() <= QUOTE_CHARS) {
            return "'" + text + "'";
        }
        int cut = Character.isHighSurrogate(text.charAt(QUOTE_CHARS - 1)) ? QUOTE_CHARS - 1 : QUOTE_CHARS;
        return "'" + text.substring(0, cut) + "…' (" + text.length() + " characters)";
    }

    /**
     * A topic a store can hold: 1 to {@value #MAX_NAME_CHARS} characters of the alphabet. Names that come from a
     * client go through {@link #checkClientTopic}, which also refuses names made only of dots; the stores check with
     * this one, so that topics stored before that rule keep working.
     */
    public static String checkTopic(String topic) {
        if (!isName(topic, false)) {
            throw new IllegalArgumentException("topic " + quote(topic)
                    + " is invalid: use 1 to " + MAX_NAME_CHARS + " characters from A-Z, a-z, 0-9, '.', '_' and '-'");
        }
        return topic;
    }

    /** A job id a store can hold; see {@link #checkTopic} and, for ids from clients, {@link #checkClientId}. */
    public static String checkId(String id) {
        if (!isName(id, true)) {
            throw new IllegalArgumentException("job id " + quote(id)
                    + " is invalid: use 1 to " + MAX_NAME_CHARS
                    + " characters from A-Z, a-z, 0-9, '.', '_', ':' and '-'");
        }
        return id;
    }

    /**
     * A topic as a client names it: {@link #checkTopic} and {@link #checkPathName}. Every entry point of the API
     * checks topics with this; the stores keep {@link #checkTopic}, so that a topic stored before the dot rule is
     * still delivered.
     */
    public static String checkClientTopic(String topic) {
        return checkPathName("topic", checkTopic(topic));
    }

    /**
     * Any other name a client chooses — a tenant, an API token, a signing secret's id, a schedule: the alphabet and
     * length of a topic, and {@link #checkPathName}.
     *
     * @param what what the name is, for the message ({@code "tenant"}, {@code "token name"})
     */
    public static String checkClientName(String what, String name) {
        if (!isName(name, false)) {
            throw new IllegalArgumentException(what + " " + quote(name)
                    + " is invalid: use 1 to " + MAX_NAME_CHARS + " characters from A-Z, a-z, 0-9, '.', '_' and '-'");
        }
        return checkPathName(what, name);
    }

    /** A job id as a client names it: {@link #checkId} and {@link #checkPathName} (see {@link #checkClientTopic}). */
    public static String checkClientId(String id) {
        return checkPathName("job id", checkId(id));
    }

    /**
     * The id of a new job as a producer gives it: {@link #checkClientId}, and not starting with ':', the namespace of the
     * jobs recurring schedules enqueue ({@link io.delayq.core.schedule.FireIds}), so that no producer can plant a
     * fire's id before the schedule fires it. Reading, cancelling or replaying a fire's job by its id stays allowed.
     */
    public static String checkProducerId(String id) {
        checkClientId(id);
        if (id.startsWith(":")) {
            throw new IllegalArgumentException("job id " + quote(id) + " starts with ':', which is reserved for the"
                    + " jobs of recurring schedules; start it with another character");
        }
        return id;
    }

    /**
     * The rule of every name a client chooses that may stand as a segment of a URL path: topics and job ids today,
     * and every name added later (tenants, tokens, schedules) calls this too. A name made only of dots is refused:
     * {@code .} and {@code ..} are steps of a path, which browsers and {@code URI.resolve} fold before the request is
     * sent ({@code /dead-letters/t/../replay} becomes {@code /dead-letters/replay}), and the server refuses an encoded
     * dot ({@code %2E}), so no encoding can carry them; {@code ...} is refused with them, so that the rule is one
     * sentence.
     *
     * @param what what the name is, for the message ({@code "topic"}, {@code "job id"})
     * @return {@code name}
     * @throws IllegalArgumentException when {@code name} is made only of dots
     */
    public static String checkPathName(String what, String name) {
        if (isOnlyDots(name)) {
            throw new IllegalArgumentException(what + " " + quote(name) + " is made only of dots; '.' and '..' are"
                    + " steps of a URL path (a browser turns /a/../b into /b), so a name needs at least one character"
                    + " other than '.'");
        }
        return name;
    }

    /** Whether {@code text} is one or more dots and nothing else. */
    public static boolean isOnlyDots(String text) {
        if (text == null || text.isEmpty()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) != '.') {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code text} is 1 to {@value #MAX_NAME_CHARS} characters from A-Z, a-z, 0-9, '.', '_', '-' (and ':' when
     * {@code colon}). A loop rather than a regular expression: every enqueue checks a topic and an id twice (the
     * service, then the store), and a {@code Matcher} per check was a measurable share of a single POST.
     */
    private static boolean isName(String text, boolean colon) {
        if (text == null || text.isEmpty() || text.length() > MAX_NAME_CHARS) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-' || (colon && c == ':');
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    public String checkPayload(String compactJson) {
        if (compactJson == null) {
            throw new IllegalArgumentException("payload is required (any JSON value, e.g. {} or null is not allowed)");
        }
        int bytes = utf8(compactJson);
        if (bytes > maxPayloadBytes) {
            throw new IllegalArgumentException("payload is " + bytes + " bytes; the limit is " + maxPayloadBytes
                    + " bytes (limits.maxPayloadBytes)");
        }
        return compactJson;
    }

    public long checkDelay(long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs is " + delayMs + "; it must be 0 or more");
        }
        if (delayMs > maxDelayMs) {
            throw new IllegalArgumentException("delayMs is " + delayMs + "; jobs can be scheduled at most "
                    + maxDelayMs + " ms (limits.maxDelay) ahead");
        }
        return delayMs;
    }

    /** Checks an absolute run time against {@code nowMs}; a time in the past is allowed and means "now". */
    public long checkRunAt(long runAtMs, long nowMs) {
        // Compared only when ahead, where a difference that overflows (turns negative) is farther than any limit;
        // a far past runAt minus now would otherwise overflow into "far ahead".
        long ahead = runAtMs - nowMs;
        if (runAtMs > nowMs && (ahead < 0 || ahead > maxDelayMs)) {
            throw new IllegalArgumentException("runAt is more than " + maxDelayMs + " ms (limits.maxDelay) ahead");
        }
        return runAtMs;
    }

    /** The shortest first wait of an exponential backoff: zero would retry at once, for ever, whatever the multiplier. */
    public static final long MIN_EXPONENTIAL_INITIAL_MS = 1;
    /** The multipliers an exponential backoff may have: 1.0 (a constant wait) to 10.0 (each wait ten times the last). */
    public static final double MIN_MULTIPLIER = 1.0;
    public static final double MAX_MULTIPLIER = 10.0;

    /**
     * Checks a job's or a topic's own backoff, or the service's default: no wait longer than {@code limits.maxDelay} (a
     * wait is added to the store's clock and must stay a time the store can hold), no more delays than attempts, and
     * an exponential one that makes sense: a first wait of at least {@value #MIN_EXPONENTIAL_INITIAL_MS} ms, a
     * multiplier from {@value #MIN_MULTIPLIER} to {@value #MAX_MULTIPLIER} (1.7e308 made the second wait the cap
     * already), and a {@code max} not below its {@code initial}. {@code null} (no backoff of its own) passes. Only
     * backoffs given now are checked: one stored before these bounds is still read and used as it is.
     */
    public Backoff checkBackoff(Backoff backoff) {
        if (backoff instanceof Backoff.Schedule schedule) {
            List<Duration> delays = schedule.delays();
            if (delays.size() > maxAttempts) {
                throw new IllegalArgumentException("backoff.delays has " + delays.size() + " delays; at most "
                        + maxAttempts + " are allowed (limits.maxAttempts: a job never waits more often than it is"
                        + " attempted, and the last delay repeats)");
            }
            for (int i = 0; i < delays.size(); i++) {
                checkWait("backoff.delays[" + i + "]", delays.get(i));
            }
        } else if (backoff instanceof Backoff.Exponential exponential) {
            if (exponential.initial().toMilliseconds() < MIN_EXPONENTIAL_INITIAL_MS) {
                throw new IllegalArgumentException("backoff.initial is " + exponential.initial() + "; the first wait"
                        + " of an exponential backoff must be at least " + MIN_EXPONENTIAL_INITIAL_MS + "ms (zero"
                        + " would retry at once, for ever), e.g. \"initial\": \"1s\"");
            }
            double multiplier = exponential.multiplier();
            if (!(multiplier >= MIN_MULTIPLIER && multiplier <= MAX_MULTIPLIER)) {
                throw new IllegalArgumentException("backoff.multiplier is " + multiplier + "; it must be from "
                        + MIN_MULTIPLIER + " to " + MAX_MULTIPLIER + " (each wait at most ten times the one before),"
                        + " e.g. \"multiplier\": 2.0");
            }
            checkWait("backoff.initial", exponential.initial());
            checkWait("backoff.max", exponential.max());
            if (exponential.max().toMilliseconds() < exponential.initial().toMilliseconds()) {
                throw new IllegalArgumentException("backoff.max (" + exponential.max()
                        + ") is shorter than backoff.initial (" + exponential.initial()
                        + "); max is the longest wait, so make it at least initial, e.g. {\"initial\": \"1s\", "
                        + "\"max\": \"1h\"}");
            }
        }
        return backoff;
    }

    private void checkWait(String field, Duration wait) {
        long ms = wait.toMilliseconds();
        if (ms > maxDelayMs) {
            throw new IllegalArgumentException(field + " is " + wait + "; a wait can be at most " + maxDelayMs
                    + " ms (limits.maxDelay)");
        }
    }

    /** Checks how many callback headers there are and how large they are together (names and values, UTF-8). */
    public Map<String, String> checkCallbackHeaders(Map<String, String> headers) {
        if (headers == null) {
            return null;
        }
        if (headers.size() > maxCallbackHeaders) {
            throw new IllegalArgumentException("callback.headers has " + headers.size() + " entries; at most "
                    + maxCallbackHeaders + " are allowed (limits.maxCallbackHeaders)");
        }
        long bytes = 0;
        for (var header : headers.entrySet()) {
            bytes += utf8(header.getKey()) + utf8(header.getValue());
        }
        if (bytes > maxCallbackHeaderBytes) {
            throw new IllegalArgumentException("callback.headers are " + bytes + " bytes (names and values together);"
                    + " the limit is " + maxCallbackHeaderBytes + " bytes (limits.maxCallbackHeaderBytes)");
        }
        return headers;
    }

    /**
     * Checks the size of a job as a whole: payload, topic, id, and its callback and backoff as JSON. Call it after
     * the parts' own checks, so that a message names the part that is too large whenever one is.
     */
    public NewJob checkJobSize(NewJob job) {
        long bytes = utf8(job.payload()) + utf8(job.topic()) + utf8(job.id());
        if (bytes + jsonBound(job.callback()) + jsonBound(job.backoff()) <= maxJobBytes) {
            return job; // within the limit even as large as their JSON could be: no need to encode them
        }
        bytes += jsonBytes(job.callback()) + jsonBytes(job.backoff());
        if (bytes > maxJobBytes) {
            throw new IllegalArgumentException("the job is " + bytes + " bytes (payload, id, callback and backoff"
                    + " together); the limit is " + maxJobBytes + " bytes (limits.maxJobBytes): send a smaller payload,"
                    + " fewer or shorter callback headers or a shorter backoff");
        }
        return job;
    }

    /** The length of {@code text} in UTF-8, as {@code getBytes(UTF_8).length} (a lone surrogate is one byte, '?'). */
    static int utf8(String text) {
        if (text == null) {
            return 0;
        }
        int n = text.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                continue;
            }
            if (c < 0x800) {
                bytes += 1;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 2; // 4 bytes for the pair's 2 chars
                i++;
            } else if (!Character.isSurrogate(c)) {
                bytes += 2;
            }
        }
        return bytes;
    }

    /**
     * At least the size of {@code value}'s JSON: each character of its text as six bytes (the longest escape JSON has),
     * and room for every field name, quote and colon. Only a {@link Callback} is bounded (a backoff's schedule has no
     * fixed size, and jobs rarely carry one): anything else is encoded.
     */
    private static long jsonBound(Object value) {
        if (value == null) {
            return 0;
        }
        if (value instanceof Callback callback) {
            long chars = callback.url() == null ? 0 : callback.url().length();
            int fields = 2;
            if (callback.headers() != null) {
                for (var header : callback.headers().entrySet()) {
                    chars += (header.getKey() == null ? 0 : header.getKey().length())
                            + (header.getValue() == null ? 0 : header.getValue().length());
                    fields++;
                }
            }
            return 6 * chars + 64L * fields;
        }
        return jsonBytes(value);
    }

    private static long jsonBytes(Object value) {
        if (value == null) {
            return 0;
        }
        try {
            return JSON.writeValueAsBytes(value).length;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode " + value.getClass().getSimpleName() + " as JSON: "
                    + e.getOriginalMessage(), e);
        }
    }
}
