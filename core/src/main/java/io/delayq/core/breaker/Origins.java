package io.delayq.core.breaker;

import java.net.URI;
import java.util.Locale;

/** The origin of a callback URL: what a circuit breaker is kept per. */
public final class Origins {
    private Origins() {
    }

    /**
     * {@code scheme://host:port}, lower-cased, with the scheme's default port made explicit, so that
     * {@code https://Example.com/a} and {@code https://example.com:443/b} share one circuit.
     *
     * @throws IllegalArgumentException when the URL has no scheme or host
     */
    public static String of(String url) {
        URI uri = URI.create(url);
        String scheme = uri.getScheme();
        String host = uri.getHost();
        if (scheme == null || host == null) {
            throw new IllegalArgumentException("not an absolute URL with a host: " + url);
        }
        scheme = scheme.toLowerCase(Locale.ROOT);
        int port = uri.getPort() >= 0 ? uri.getPort() : "https".equals(scheme) ? 443 : 80;
        return scheme + "://" + host.toLowerCase(Locale.ROOT) + ":" + port;
    }
}
