package io.delayq.service.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Predicate;

/**
 * A real local HTTP server that receives callbacks. Paths starting with {@code /fail} answer 500, {@code /slow} waits
 * {@code slowMs} first then answers 200, everything else 200.
 */
public final class CallbackReceiver implements AutoCloseable {

    /** One received request. */
    public record Received(String path, Map<String, List<String>> headers, byte[] body, long receivedAtMs) {
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }

        public String bodyText() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private final HttpServer server;
    private final java.util.concurrent.ExecutorService executor = Executors.newFixedThreadPool(32);
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> statusByPath = new ConcurrentHashMap<>();
    private volatile long slowMs = 1_000;

    public CallbackReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public void slowMs(long ms) {
        this.slowMs = ms;
    }

    private void handle(HttpExchange exchange) throws IOException {
        byte[] body = exchange.getRequestBody().readAllBytes();
        String path = exchange.getRequestURI().getPath();
        if (path.startsWith("/slow")) {
            try {
                Thread.sleep(slowMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        received.add(new Received(path, Map.copyOf(exchange.getRequestHeaders()), body, System.currentTimeMillis()));
        int status = statusByPath.getOrDefault(path, path.startsWith("/fail") ? 500 : 200);
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    public List<Received> received(Predicate<Received> filter) {
        return received.stream().filter(filter).toList();
    }

    public List<Received> forJob(String id) {
        return received(r -> id.equals(r.header("Delayq-Id")));
    }

    /** Waits until at least {@code count} requests match, or the timeout passes; returns the matches. */
    public List<Received> await(Predicate<Received> filter, int count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            List<Received> matches = received(filter);
            if (matches.size() >= count) {
                return matches;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return received(filter);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
