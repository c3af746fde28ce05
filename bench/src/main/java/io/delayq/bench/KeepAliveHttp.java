package io.delayq.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal HTTP/1.1 client on one keep-alive connection, for the W4/W6 producers: a request is a write and a
 * blocking read on the caller's thread, like {@code wrk} does it. {@code java.net.http.HttpClient} hands every
 * request between its selector thread and the caller, which on the 2-core machines of BENCHMARK.md cost the
 * harness more CPU than the service it measures. One instance per producer thread; not thread-safe.
 */
final class KeepAliveHttp implements AutoCloseable {
    /** A status code and the body as text. */
    record Response(int status, String body) {
    }

    private final String host;
    private final int port;
    private final String authorization;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    KeepAliveHttp(String host, int port, String bearerToken) {
        this.host = host;
        this.port = port;
        this.authorization = "Bearer " + bearerToken;
    }

    /** Sends one request with a JSON body and reads the whole answer; reconnects once when the server closed. */
    Response send(String method, String path, String jsonBody) throws IOException {
        byte[] body = jsonBody.getBytes(StandardCharsets.UTF_8);
        byte[] head = (method + " " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
                + "\r\nAuthorization: " + authorization
                + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: " + body.length
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        boolean fresh = socket == null;
        try {
            return exchange(head, body);
        } catch (IOException e) {
            close();
            if (fresh) {
                throw e;
            }
            return exchange(head, body); // a keep-alive connection the server had closed
        }
    }

    private Response exchange(byte[] head, byte[] body) throws IOException {
        if (socket == null) {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(30_000);
            socket.connect(new InetSocketAddress(host, port), 5_000);
            in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            out = socket.getOutputStream();
        }
        byte[] request = new byte[head.length + body.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(body, 0, request, head.length, body.length);
        out.write(request);
        out.flush();
        String status = line(in);
        if (status == null) {
            throw new IOException("the server closed the connection");
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean closeAfter = false;
        for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            String name = h.substring(0, colon).trim();
            String value = h.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                length = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
                chunked = true;
            } else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
                closeAfter = true;
            }
        }
        String text = new String(chunked ? chunkedBody(in) : in.readNBytes((int) Math.max(0, length)),
                StandardCharsets.UTF_8);
        if (closeAfter || (!chunked && length < 0)) {
            close();
        }
        return new Response(code, text);
    }

    private static byte[] chunkedBody(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line(in);
            if (size == null) {
                throw new IOException("the server closed the connection inside a chunked body");
            }
            int n = Integer.parseInt(size.split(";", 2)[0].trim(), 16);
            if (n == 0) {
                while (true) { // trailers, then the blank line
                    String trailer = line(in);
                    if (trailer == null || trailer.isEmpty()) {
                        return body.toByteArray();
                    }
                }
            }
            body.write(in.readNBytes(n));
            line(in);
        }
    }

    /** One CRLF-terminated line without its CRLF; null at the end of the stream. */
    static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder(64);
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                int n = b.length();
                return n > 0 && b.charAt(n - 1) == '\r' ? b.substring(0, n - 1) : b.toString();
            }
            b.append((char) c);
        }
        return b.length() == 0 ? null : b.toString();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        socket = null;
        in = null;
        out = null;
    }
}
