package io.delayq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The service refused a request, or could not be reached. For answers in {@code application/problem+json} the
 * {@link #status()}, {@link #title()}, {@link #detail()} and {@link #type()} come from the problem document; the
 * detail says what to do about it. Subclasses name the common cases.
 */
public class DelayqException extends RuntimeException {
    private final int status;
    private final String title;
    private final String detail;
    private final String type;
    private final transient JsonNode problem;

    public DelayqException(int status, String title, String detail, String type, JsonNode problem) {
        super(message(status, title, detail));
        this.status = status;
        this.title = title;
        this.detail = detail;
        this.type = type;
        this.problem = problem;
    }

    /** The service could not be reached or its answer could not be read. */
    public DelayqException(String message, Throwable cause) {
        super(message, cause);
        this.status = 0;
        this.title = null;
        this.detail = message;
        this.type = null;
        this.problem = null;
    }

    /** The HTTP status, or {@code 0} when there was no answer (connection failure, timeout). */
    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    public String detail() {
        return detail;
    }

    /** The problem type URI, e.g. {@code urn:delayq:problem:stale-lease}, when the answer had one. */
    public String type() {
        return type;
    }

    /** The whole problem document (with any extensions), or {@code null}. */
    public JsonNode problem() {
        return problem;
    }

    private static String message(int status, String title, String detail) {
        StringBuilder out = new StringBuilder().append(status);
        if (title != null) {
            out.append(' ').append(title);
        }
        if (detail != null && !detail.isBlank()) {
            out.append(": ").append(detail);
        }
        return out.toString();
    }
}
