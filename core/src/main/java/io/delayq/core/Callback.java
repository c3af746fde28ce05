package io.delayq.core;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;
import java.util.Objects;

/** Where a push delivery goes: an absolute http(s) URL and extra request headers. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Callback(String url, Map<String, String> headers) {
    public Callback {
        Objects.requireNonNull(url, "url");
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    public static Callback of(String url) {
        return new Callback(url, Map.of());
    }
}
