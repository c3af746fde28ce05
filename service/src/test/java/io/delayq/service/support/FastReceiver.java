package io.delayq.service.support;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A local HTTP/1.1 receiver that answers every request {@code 200} at once, for tests that need callbacks by the
 * thousand: one blocking thread per keep-alive connection reads a request and answers it, with no hand-off (the JDK's
 * {@code HttpServer} passes every exchange to an executor, two context switches per callback). Each request is handed
 * to the test's {@link Consumer} with its arrival time, headers (lower-case names) and body, before the answer.
 */
public final class FastReceiver implements AutoCloseable {
    private static final byte[] OK = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** One request as received. */
    public record Request(long receivedAtMs, Map<String, String> headers, byte[] body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final ServerSocket server;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final Consumer<Request> onRequest;
    private volatile boolean open = true;

    public FastReceiver(Consumer<Request> onRequest) throws IOException {
        this.onRequest = onRequest;
        server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "fast-receiver-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getLocalPort() + path;
    }

    private void accept() {
        while (open) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                connections.add(s);
                Thread t = new Thread(() -> serve(s), "fast-receiver");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                // closed
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = new BufferedInputStream(s.getInputStream(), 16 * 1024)) {
            OutputStream out = s.getOutputStream();
            while (open) {
                String requestLine = line(in);
                if (requestLine == null) {
                    return;
                }
                Map<String, String> headers = new TreeMap<>();
                for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                    int colon = h.indexOf(':');
                    if (colon > 0) {
                        headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
                    }
                }
                long at = System.currentTimeMillis();
                int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
                byte[] body = in.readNBytes(length);
                onRequest.accept(new Request(at, headers, body));
                out.write(OK);
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            // the connection went away
        } finally {
            connections.remove(s);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                int n = b.size();
                byte[] bytes = b.toByteArray();
                return new String(bytes, 0, n > 0 && bytes[n - 1] == '\r' ? n - 1 : n, StandardCharsets.ISO_8859_1);
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() {
        open = false;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket s : connections) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
