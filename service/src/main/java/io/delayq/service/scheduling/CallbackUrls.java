package io.delayq.service.scheduling;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The shape rules of a callback, checked before anything is stored: an absolute http(s) URL with a host, and header
 * names and values that cannot break the request. Where a callback may point (allow-list, link-local and metadata
 * addresses) is the delivery engine's {@code CallbackGuard}'s business.
 */
public final class CallbackUrls {
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}");
    private static final int MAX_URL_LENGTH = 2048;
    private static final int MAX_HEADERS = 32;

    private CallbackUrls() {
    }

    public static void checkUrl(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("callback.url is required, e.g. \"https://example.com/hooks/delayq\"");
        }
        if (url.length() > MAX_URL_LENGTH) {
            throw new IllegalArgumentException("callback.url is longer than " + MAX_URL_LENGTH + " characters");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("callback.url '" + url + "' is not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("callback.url '" + url + "' must be an absolute http:// or https:// URL");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new IllegalArgumentException("callback.url '" + url + "' has no host");
        }
        if (uri.getUserInfo() != null) {
            throw new IllegalArgumentException("callback.url must not carry user:password; send credentials in "
                    + "callback.headers instead");
        }
    }

    public static void checkHeaders(Map<String, String> headers) {
        if (headers == null) {
            return;
        }
        if (headers.size() > MAX_HEADERS) {
            throw new IllegalArgumentException("callback.headers has " + headers.size() + " entries; at most "
                    + MAX_HEADERS + " are allowed");
        }
        headers.forEach((name, value) -> {
            if (name == null || !HEADER_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("callback.headers: '" + name + "' is not a valid header name");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith("delayq-") || lower.equals("content-length") || lower.equals("host")
                    || lower.equals("transfer-encoding") || lower.equals("connection")) {
                throw new IllegalArgumentException("callback.headers: '" + name
                        + "' is set by delayq itself and cannot be overridden");
            }
            if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.length() > 8192) {
                throw new IllegalArgumentException("callback.headers: the value of '" + name
                        + "' must be a string without line breaks, at most 8192 characters");
            }
        });
    }
}
