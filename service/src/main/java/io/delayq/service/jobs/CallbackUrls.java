package io.delayq.service.jobs;

import io.delayq.core.JobRules;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The shape rules of a callback, checked before anything is stored: an absolute http(s) URL with a host and a port
 * that exists, and header names and values that an HTTP request can carry as given. How many headers and how large
 * they are is {@link JobRules}' business (configurable limits); where a callback may point (allow-list, link-local and
 * metadata addresses) is the delivery engine's {@code CallbackGuard}'s.
 */
public final class CallbackUrls {
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}");
    /** Visible ASCII, space and tab: what every HTTP/1.1 implementation sends and reads alike. */
    private static final Pattern HEADER_VALUE = Pattern.compile("[\\x20-\\x7E\\t]*");
    private static final int MAX_URL_LENGTH = 2048;

    private CallbackUrls() {
    }

    public static void checkUrl(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("callback.url is required, e.g. \"https://example.com/hooks/delayq\"");
        }
        if (url.length() > MAX_URL_LENGTH) {
            throw new IllegalArgumentException("callback.url is " + url.length() + " characters; at most "
                    + MAX_URL_LENGTH + " are allowed");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("callback.url " + JobRules.quote(url) + " is not a valid URL: "
                    + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("callback.url " + JobRules.quote(url)
                    + " must be an absolute http:// or https:// URL");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new IllegalArgumentException("callback.url " + JobRules.quote(url) + " has no host"
                    + (uri.getRawAuthority() != null && uri.getRawAuthority().contains(":")
                    ? " (or a port that is not a number from 1 to 65535)" : ""));
        }
        // java.net.URI reads any digits as a port; 0 and above 65535 cannot be connected to.
        if (uri.getPort() != -1 && (uri.getPort() < 1 || uri.getPort() > 65535)) {
            throw new IllegalArgumentException("callback.url " + JobRules.quote(url) + " has the port " + uri.getPort()
                    + "; a port is a number from 1 to 65535 (or leave it out for 80 or 443)");
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
        headers.forEach((name, value) -> {
            if (name == null || !HEADER_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("callback.headers: " + JobRules.quote(name)
                        + " is not a valid header name (letters, digits and !#$%&'*+.^_`|~- only)");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith("delayq-") || lower.equals("content-length") || lower.equals("host")
                    || lower.equals("transfer-encoding") || lower.equals("connection")) {
                throw new IllegalArgumentException("callback.headers: '" + name
                        + "' is set by delayq itself and cannot be overridden");
            }
            if (value == null || !HEADER_VALUE.matcher(value).matches()) {
                throw new IllegalArgumentException("callback.headers: the value of '" + name + "' must be a string of"
                        + " printable ASCII (spaces and tabs allowed; no line breaks, control characters or other"
                        + " Unicode): encode anything else, e.g. in base64 or percent-encoding");
            }
        });
    }
}
