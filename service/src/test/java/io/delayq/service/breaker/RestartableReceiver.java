package io.delayq.service.breaker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A real HTTP receiver on a fixed port of 127.0.0.1 that can go down and come back on the same port, so that a
 * callback origin ({@code http://127.0.0.1:<port>}) has an outage: while {@link #stop stopped}, nothing listens and
 * connections are refused. It answers 200 and records every request: job id, attempt number and arrival time.
 * (The shared {@code CallbackReceiver} takes a new free port each time it starts.)
 */
final class RestartableReceiver implements AutoCloseable {

    /** One callback as received. */
    record Arrival(String id, String topic, int attempt, long atMs) {
    }

    private final int port;
    private final ConcurrentLinkedQueue<Arrival> arrivals = new ConcurrentLinkedQueue<>();
    private final ExecutorService executor = Executors.newFixedThreadPool(16, r -> {
        Thread t = new Thread(r, "restartable-receiver");
        t.setDaemon(true);
        return t;
    });
    private HttpServer server;

    /** Starts it on a free port. */
    RestartableReceiver() {
        this.port = freePort();
        start();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    int port() {
        return port;
    }

    /** Listens (again) on its port. */
    synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 1024);
            s.createContext("/", this::handle);
            s.setExecutor(executor);
            s.start();
            server = s;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on port " + port + " again", e);
        }
    }

    /** Stops listening: from now on connections to its port are refused. */
    synchronized void stop() {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }

    List<Arrival> arrivals() {
        return new ArrayList<>(arrivals);
    }

    private void handle(HttpExchange exchange) throws IOException {
        long at = System.currentTimeMillis();
        try (exchange) {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            String attempt = exchange.getRequestHeaders().getFirst("Delayq-Attempt");
            arrivals.add(new Arrival(exchange.getRequestHeaders().getFirst("Delayq-Id"),
                    exchange.getRequestHeaders().getFirst("Delayq-Topic"),
                    attempt == null ? -1 : Integer.parseInt(attempt), at));
            exchange.sendResponseHeaders(200, -1);
        }
    }

    private static int freePort() {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        stop();
        executor.shutdownNow();
    }
}
