package io.delayq.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The HTTP/1.1 that {@link CallbackReceiver} speaks: a request read off a keep-alive connection (a
 * {@code Content-Length} or chunked body, {@code Expect: 100-continue}), and an answer with a short text body.
 */
final class HttpRequests {
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** A request, and whether the connection stays open after its answer. */
    record Request(CallbackReceiver.Received received, boolean keepAlive) {
    }

    private HttpRequests() {
    }

    /** @return the next request on the connection, or null when the caller closed it */
    static Request read(InputStream in, OutputStream out) throws IOException {
        String requestLine = line(in);
        if (requestLine == null) {
            return null;
        }
        String[] parts = requestLine.split(" ");
        if (parts.length < 3) {
            throw new IOException("not an HTTP request line: " + requestLine);
        }
        Map<String, String> headers = new TreeMap<>();
        for (String h = requiredLine(in); !h.isEmpty(); h = requiredLine(in)) {
            int colon = h.indexOf(':');
            if (colon > 0) {
                headers.putIfAbsent(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
            }
        }
        long at = System.currentTimeMillis();
        if ("100-continue".equalsIgnoreCase(headers.get("expect"))) {
            out.write(CONTINUE);
            out.flush();
        }
        byte[] body = body(in, headers);
        String connection = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
        boolean keepAlive = parts[2].equals("HTTP/1.1") ? !connection.contains("close") : connection.contains("keep-alive");
        String path = path(parts[1]);
        return new Request(new CallbackReceiver.Received(parts[0], path, Map.copyOf(headers), body, at), keepAlive);
    }

    /** The answer: the status line, {@code headers}, and {@code status <n>} as the body (none for 204 and 304). */
    static byte[] response(int status, Map<String, String> headers) {
        boolean noBody = status == 204 || status == 304;
        String body = noBody ? "" : "status " + status;
        StringBuilder b = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason(status)).append("\r\n");
        headers.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
        if (!noBody) {
            b.append("Content-Type: text/plain\r\nContent-Length: ").append(body.length()).append("\r\n");
        }
        return b.append("\r\n").append(body).toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] body(InputStream in, Map<String, String> headers) throws IOException {
        if (headers.getOrDefault("transfer-encoding", "").toLowerCase(Locale.ROOT).contains("chunked")) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (int size; (size = Integer.parseInt(requiredLine(in).split(";")[0].trim(), 16)) > 0; ) {
                body.write(in.readNBytes(size));
                requiredLine(in);
            }
            while (!requiredLine(in).isEmpty()) {
                // trailers
            }
            return body.toByteArray();
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new IOException("the connection closed in the middle of a body");
        }
        return body;
    }

    /** The path of a request target, decoded, without its query. */
    private static String path(String target) {
        try {
            String path = URI.create(target).getPath();
            return path == null ? target : path;
        } catch (IllegalArgumentException notAUri) {
            int query = target.indexOf('?');
            return query < 0 ? target : target.substring(0, query);
        }
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 201 -> "Created";
            case 202 -> "Accepted";
            case 204 -> "No Content";
            case 301 -> "Moved Permanently";
            case 302 -> "Found";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 410 -> "Gone";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            default -> "Status";
        };
    }

    private static String requiredLine(InputStream in) throws IOException {
        String line = line(in);
        if (line == null) {
            throw new IOException("the connection closed in the middle of a request");
        }
        return line;
    }

    /** A line without its CRLF (or LF); null at the end of the stream before any byte of it. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        for (int c; (c = in.read()) != -1; ) {
            if (c == '\n') {
                byte[] bytes = b.toByteArray();
                int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
            }
            b.write(c);
        }
        if (b.size() == 0) {
            return null;
        }
        throw new IOException("the connection closed in the middle of a line");
    }
}
