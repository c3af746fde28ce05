package io.delayq.service.errors;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error answer in the shape of RFC 9457 ({@code application/problem+json}). {@code type} is a stable URI per kind
 * of problem ({@code urn:delayq:problem:<kind>}), {@code detail} says what went wrong and what to do about it, and
 * {@code extensions} carry machine-readable extras such as the {@code errors} of a validation failure. A 503 or 429
 * carries {@code Retry-After} ({@link #RETRY_AFTER_SECONDS}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "instance"})
public record Problem(String type, String title, int status, String detail, String instance,
                      @JsonIgnore Map<String, Object> extensions) {
    public static final String MEDIA_TYPE = "application/problem+json";
    public static final MediaType MEDIA = MediaType.valueOf(MEDIA_TYPE);
    /**
     * Seconds a client should wait before repeating a request answered 503 or 429 ({@code Retry-After}): an outage of
     * the store or the archive, or a failover, is seen again at once, and a failover usually ends within seconds;
     * clients with a backoff of their own take the longer of the two.
     */
    public static final int RETRY_AFTER_SECONDS = 2;

    /**
     * Longest detail (and instance), and longest text extension, a problem carries; longer ones are cut and their
     * length noted.
     */
    static final int MAX_DETAIL = 1024;
    static final int MAX_EXTENSION = 256;

    public Problem {
        // The rules quote at most a few dozen characters of any input (JobRules.quote); this is the backstop for
        // messages written elsewhere (Jackson's, JAX-RS's, a field path made of a huge unknown key).
        detail = capped(detail, MAX_DETAIL);
        instance = capped(instance, MAX_DETAIL);
        var copy = new LinkedHashMap<String, Object>();
        if (extensions != null) {
            extensions.forEach((key, value) ->
                    copy.put(key, value instanceof String text ? capped(text, MAX_EXTENSION) : value));
        }
        extensions = Collections.unmodifiableMap(copy);
    }

    private static String capped(String text, int max) {
        if (text == null || text.length() <= max) {
            return text;
        }
        return text.substring(0, max) + "… (" + text.length() + " characters)";
    }

    public static Problem of(String kind, int status, String detail) {
        return new Problem("urn:delayq:problem:" + kind, title(status), status, detail, null, Map.of());
    }

    private static String title(int status) {
        if (status == 422) {
            return "Unprocessable Content";  // not in JAX-RS 3.1's Status enum
        }
        Response.Status known = Response.Status.fromStatusCode(status);
        return known != null ? known.getReasonPhrase() : "HTTP " + status;
    }

    public Problem withInstance(String instance) {
        return new Problem(type, title, status, detail, instance, extensions);
    }

    public Problem with(String key, Object value) {
        var copy = new LinkedHashMap<>(extensions);
        copy.put(key, value);
        return new Problem(type, title, status, detail, instance, copy);
    }

    @JsonAnyGetter
    public Map<String, Object> extensionsForJson() {
        return extensions;
    }

    public Response toResponse() {
        Response.ResponseBuilder response = Response.status(status).type(MEDIA).entity(this);
        if (asksToRetry(status)) {
            response.header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
        }
        return response.build();
    }

    /**
     * Whether an answer with this status tells the client to come back later ({@code 503}, {@code 429}), and so
     * carries {@code Retry-After: }{@value #RETRY_AFTER_SECONDS}.
     */
    public static boolean asksToRetry(int status) {
        return status == 503 || status == 429;
    }
}
