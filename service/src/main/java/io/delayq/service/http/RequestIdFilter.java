package io.delayq.service.http;

import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.MDC;

import java.io.IOException;
import java.util.EnumSet;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * A request id for every request to the application port: the caller's {@value #HEADER} when it is a plausible id
 * (1 to 100 characters of {@code [A-Za-z0-9._-]}), else a new random one. It is in the SLF4J MDC under
 * {@value #MDC_KEY} while the request is served on its thread, so every log line written for the request carries it
 * (the JSON layout writes the MDC; a pattern layout can with {@code %X{requestId}}), and it is echoed in the
 * response's {@value #HEADER}.
 *
 * <p>A servlet filter rather than a Jersey one, so it also covers the dashboard's files and the web server's own
 * error pages. Work a request hands to other threads (callbacks, event streams after the response started) does
 * not carry the id.
 */
public final class RequestIdFilter implements Filter {
    public static final String HEADER = "X-Request-Id";
    public static final String MDC_KEY = "requestId";
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    /** Adds the filter in front of everything on the application port. */
    public static void register(Environment environment) {
        environment.servlets().addFilter("request-id", new RequestIdFilter())
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
    }

    /** The caller's id when valid; otherwise (absent, too long, other characters) a new one. */
    static String idFor(String header) {
        return header != null && VALID.matcher(header).matches() ? header : newId();
    }

    /**
     * A random UUID (version 4) from {@link ThreadLocalRandom}: an id for correlating log lines needs to be unique, not
     * unguessable, and {@link UUID#randomUUID()} draws from one {@code SecureRandom} that every request thread would
     * queue on.
     */
    static String newId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = (random.nextLong() & ~0xF000L) | 0x4000L; // version 4
        long low = (random.nextLong() & ~(0xC000L << 48)) | (0x8000L << 48); // IETF variant
        return new UUID(high, low).toString();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String id = idFor(((HttpServletRequest) request).getHeader(HEADER));
        // Before the chain: once the response is committed, headers can no longer be added.
        ((HttpServletResponse) response).setHeader(HEADER, id);
        String outer = MDC.get(MDC_KEY);
        MDC.put(MDC_KEY, id);
        try {
            chain.doFilter(request, response);
        } finally {
            // Jetty's threads are pooled: an id left behind would be logged with the thread's next request.
            if (outer == null) {
                MDC.remove(MDC_KEY);
            } else {
                MDC.put(MDC_KEY, outer);
            }
        }
    }
}
