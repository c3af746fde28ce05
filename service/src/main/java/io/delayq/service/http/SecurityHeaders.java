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

import java.io.IOException;
import java.util.EnumSet;
import java.util.function.BiConsumer;

/**
 * The browser protections of every answer of the application port: a Content-Security-Policy, no framing
 * ({@code frame-ancestors 'none'} and, for older browsers, {@code X-Frame-Options}), no MIME sniffing, no referrer.
 * The dashboard under {@code /ui/} may load its own scripts and styles and call its own origin, nothing else (it is
 * plain JavaScript modules and one stylesheet: no inline script or style, no style attribute, no eval); every other
 * answer is JSON or YAML, whose policy allows nothing at all. The web server's own refusals get the same headers
 * through {@code ProblemErrorHandler}.
 */
public final class SecurityHeaders implements Filter {
    static final String DASHBOARD_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
            + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    static final String API_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none';"
            + " frame-ancestors 'none'";

    /** Adds the filter to every path of the application port, errors dispatched by the servlet layer included. */
    public static void register(Environment environment) {
        environment.servlets().addFilter("security-headers", new SecurityHeaders())
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ERROR), true, "/*");
    }

    /** Sets the headers of an answer to {@code path} through {@code header} (name, value). */
    public static void apply(String path, BiConsumer<String, String> header) {
        boolean dashboard = path != null && (path.equals("/ui") || path.startsWith("/ui/"));
        header.accept("Content-Security-Policy", dashboard ? DASHBOARD_POLICY : API_POLICY);
        header.accept("X-Frame-Options", "DENY");
        header.accept("X-Content-Type-Options", "nosniff");
        header.accept("Referrer-Policy", "no-referrer");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request instanceof HttpServletRequest http && response instanceof HttpServletResponse answer) {
            apply(http.getRequestURI(), answer::setHeader);
        }
        chain.doFilter(request, response);
    }
}
