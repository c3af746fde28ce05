package io.delayq.core;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;

/**
 * Where a push delivery goes: an absolute http(s) URL and extra request headers. The rules of what a URL or header
 * may be are checked where a callback is accepted (the service's {@code CallbackCheck}); this refuses only what cannot
 * be held at all, with a message rather than a {@link NullPointerException}.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Callback(String url, Map<String, String> headers) {
    /**
     * What is shown in place of a header value wherever a callback is shown (the API's views, logs): header values are
     * the receivers' credentials, write-only; only delivery reads them.
     */
    public static final String MASKED_VALUE = "********";

    public Callback {
        if (url == null) {
            throw new IllegalArgumentException("callback.url is required, e.g. \"https://example.com/hooks/delayq\"");
        }
        if (headers != null) {
            headers.forEach((name, value) -> {
                if (name == null || value == null) {
                    throw new IllegalArgumentException("callback.headers: " + (name == null ? "a header name is null"
                            : "the value of " + JobRules.quote(name) + " is null") + "; each header is a string");
                }
            });
        }
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    public static Callback of(String url) {
        return new Callback(url, Map.of());
    }

    /** The URL and the header names, each value {@link #MASKED_VALUE}: a log line that prints a job leaks no value. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("Callback[url=").append(url).append(", headers={");
        String separator = "";
        for (String name : headers.keySet()) {
            out.append(separator).append(name).append('=').append(MASKED_VALUE);
            separator = ", ";
        }
        return out.append("}]").toString();
    }
}
