package io.delayq.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests the web server refuses before the API sees them (path forms the URI rules refuse, oversized request lines
 * and headers, contradictory framing) still answer {@code application/problem+json}. Sent over a raw socket, because
 * an HTTP client library would refuse to send most of them.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class WebServerRefusalsTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A raw HTTP/1.1 answer: status, headers (lower-case names), body. */
    record RawAnswer(int status, Map<String, String> headers, String body) {
        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }

        @Override
        public String toString() {
            return status + " " + headers + "\n" + body;
        }
    }

    private static RawAnswer send(String head) throws IOException {
        return send(head.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static RawAnswer send(byte[] request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", APP.getLocalPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            return read(socket.getInputStream());
        }
    }

    /** Reads one response: up to the end of its Content-Length, or of the connection. */
    private static RawAnswer read(InputStream in) throws IOException {
        var all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int headEnd = -1;
        int contentLength = -1;
        try {
            int n;
            while ((n = in.read(buffer)) > 0) {
                all.write(buffer, 0, n);
                String text = all.toString(StandardCharsets.ISO_8859_1);
                if (headEnd < 0 && (headEnd = text.indexOf("\r\n\r\n")) >= 0) {
                    var m = java.util.regex.Pattern.compile("(?im)^content-length:\\s*(\\d+)").matcher(text.substring(0, headEnd));
                    contentLength = m.find() ? Integer.parseInt(m.group(1)) : -1;
                }
                if (headEnd >= 0 && contentLength >= 0 && all.size() >= headEnd + 4 + contentLength) {
                    break;
                }
            }
        } catch (SocketTimeoutException | java.net.SocketException e) {
            // what was read so far is the answer
        }
        String text = all.toString(StandardCharsets.UTF_8);
        assertThat(text).as("an HTTP answer").startsWith("HTTP/1.1 ");
        int end = text.indexOf("\r\n\r\n");
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        var headers = new LinkedHashMap<String, String>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        String body = text.substring(end + 4);
        if (contentLength >= 0 && body.length() > contentLength) {
            body = body.substring(0, contentLength);
        }
        return new RawAnswer(status, headers, body);
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TestApps.PRODUCER
                + "\r\nConnection: close\r\n\r\n";
    }

    private static void assertProblem(RawAnswer answer, int status, String... detailParts) throws IOException {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
        assertThat(answer.headers().get("content-type")).as(answer.toString()).startsWith("application/problem+json");
        JsonNode problem = answer.json();
        assertThat(problem.path("status").asInt()).isEqualTo(status);
        assertThat(problem.path("type").asText()).startsWith("urn:delayq:problem:");
        assertThat(problem.path("title").asText()).isNotBlank();
        assertThat(problem.path("detail").asText()).isNotBlank();
        for (String part : detailParts) {
            assertThat(problem.path("detail").asText()).contains(part);
        }
    }

    @Test
    void encodedSlashInThePath() throws IOException {
        assertProblem(send(get("/v1/topics/a%2Fb/jobs/x")), 400, "path");
    }

    @Test
    void encodedDotSegmentsInThePath() throws IOException {
        assertProblem(send(get("/v1/topics/%2e%2e/jobs/x")), 400, "path");
        assertProblem(send(get("/v1/topics/a/jobs/%2E")), 400, "path");
    }

    @Test
    void emptySegmentInThePath() throws IOException {
        assertProblem(send(get("/v1/topics//jobs/x")), 400, "path");
    }

    @Test
    void encodedNulInThePath() throws IOException {
        assertProblem(send(get("/v1/topics/a%00b/jobs/x")), 400);
    }

    @Test
    void requestLineTooLong() throws IOException {
        assertProblem(send(get("/v1/topics/" + "a".repeat(20_000) + "/jobs/x")), 414);
    }

    @Test
    void headersTooLarge() throws IOException {
        String request = "GET /v1/topics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "b".repeat(20_000)
                + "\r\nConnection: close\r\n\r\n";
        assertProblem(send(request), 431);
    }

    @Test
    void contentLengthAndTransferEncodingTogether() throws IOException {
        String body = "{\"payload\":{}}";
        String request = "POST /v1/topics/t/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                + TestApps.PRODUCER + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + Integer.toHexString(body.length())
                + "\r\n" + body + "\r\n0\r\n\r\n";
        assertProblem(send(request), 400);
    }

    @Test
    void twoDifferentContentLengths() throws IOException {
        String request = "POST /v1/topics/t/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}";
        assertProblem(send(request), 400);
    }

    @Test
    void malformedHeaderLine() throws IOException {
        String request = "GET /v1/topics HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\nConnection: close\r\n\r\n";
        assertProblem(send(request), 400);
    }

    @Test
    void unknownHttpVersion() throws IOException {
        assertProblem(send("GET /v1/topics HTTP/7.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"), 505);
    }

    @Test
    void aMethodTheServerDoesNotAllow() throws IOException {
        assertProblem(send("TRACE /v1/topics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"), 405);
    }

    @Test
    void refusalsOfPutAndDeleteHaveABodyToo() throws IOException {
        assertProblem(send("PUT /v1/topics/a%2Fb HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n"
                + "Connection: close\r\n\r\n"), 400, "path");
        assertProblem(send("DELETE /v1/topics//jobs/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
                400, "path");
    }

    @Test
    void theApiStillAnswersItsOwnProblems() throws IOException {
        RawAnswer unauthorized = send("GET /v1/topics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        assertProblem(unauthorized, 401);
    }
}
