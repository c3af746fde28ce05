package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;

/**
 * Where the service POSTs a job when it falls due.
 *
 * @param url     absolute http(s) URL
 * @param headers extra request headers sent with every attempt
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Callback(String url, Map<String, String> headers) {
    public Callback {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    public static Callback of(String url) {
        return new Callback(url, Map.of());
    }
}
