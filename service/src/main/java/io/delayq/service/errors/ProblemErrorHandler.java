package io.delayq.service.errors;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.JobRules;
import io.delayq.service.http.SecurityHeaders;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The answers of the web server itself as problem+json, for requests Jetty refuses before the API sees them: a path
 * its URI rules refuse (encoded {@code /} or {@code .}, empty segments, {@code %00}), a request line or headers over
 * its limits (414, 431), contradictory framing (Content-Length with Transfer-Encoding, two Content-Lengths), an
 * unknown HTTP version (505). Jetty's own handler answers HTML, or nothing for methods other than GET and POST. A 503
 * or 429 of the web server carries {@code Retry-After}, like every one the service answers.
 *
 * <p>Set as the server's error handler and as the application context's, so that refusals made while parsing the
 * request and those made by the servlet layer answer alike. The API's own errors never get here: the exception
 * mappers of this package answer them.
 */
public final class ProblemErrorHandler extends ErrorHandler {
    private static final ObjectMapper JSON = new ObjectMapper();

    public ProblemErrorHandler() {
        setShowStacks(false);
        setShowCauses(false);
    }

    /** Every method gets a body: a client that sent a PUT needs the reason as much as one that sent a GET. */
    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) throws IOException {
        Problem problem = problem(code, message == null ? "" : message);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE);
        SecurityHeaders.apply(request.getHttpURI() == null ? null : request.getHttpURI().getPath(),
                (name, value) -> response.getHeaders().put(name, value));
        if (Problem.asksToRetry(code) && !response.getHeaders().contains(HttpHeader.RETRY_AFTER)) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, Problem.RETRY_AFTER_SECONDS);
        }
        response.write(true, ByteBuffer.wrap(JSON.writeValueAsBytes(problem)), callback);
    }

    static Problem problem(int code, String message) {
        return switch (code) {
            case 400 -> message.contains("URI") || message.contains("path")
                    ? Problem.of("invalid-path", 400, "The request path is refused (" + message + "). A path may not"
                    + " contain an encoded '/' or '.' (%2F, %2E), an empty segment (//) or encoded control characters"
                    + " (%00); topic names and job ids never need them")
                    : Problem.of("bad-request", 400, "The HTTP request is malformed (" + message + "). Send one"
                    + " Content-Length or Transfer-Encoding: chunked (not both), and headers as 'Name: value' lines");
            case 414 -> Problem.of("uri-too-long", 414, "The request line is longer than the server accepts ("
                    + message + "); topic names and ids have at most " + JobRules.MAX_NAME_CHARS
                    + " characters, and anything larger belongs in the JSON body");
            case 431 -> Problem.of("headers-too-large", 431, "The request headers are larger than the server accepts ("
                    + message + "); send fewer or smaller headers");
            case 505 -> Problem.of("http-version-not-supported", 505, "This server speaks HTTP/1.1 (and 1.0): send"
                    + " the request as HTTP/1.1 (" + message + ")");
            default -> Problem.of(code >= 500 ? "server-error" : "http-" + code, code,
                    "The HTTP server refused the request: " + message);
        };
    }
}
