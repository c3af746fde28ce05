package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;

/**
 * Where the service POSTs a job when it falls due.
 *
 * @param url     absolute http(s) URL
 * @param headers extra request headers sent with every attempt; in what the service answers, each value is
 *                {@link #MASKED_VALUE} (header values are write-only)
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Callback(String url, Map<String, String> headers) {
    /**
     * The value the service shows for every header: values are the receiver's credentials and write-only. Sent back in
     * a topic update, it keeps the value stored under the same header name (same origin only).
     */
    public static final String MASKED_VALUE = "********";

    public Callback {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    public static Callback of(String url) {
        return new Callback(url, Map.of());
    }
}
