package io.delayq.service.delivery;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** A real HTTP server on a free port that records every callback and answers as the test says. */
final class CallbackReceiver implements AutoCloseable {

    /** One request as received. */
    record Received(String path, Map<String, String> headers, byte[] body, long atMillis) {
        String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }

        String id() {
            return header("Delayq-Id");
        }
    }

    /** How to answer: a status after a delay, with extra headers. */
    record Reply(int status, long delayMs, Map<String, String> headers) {
        static Reply ok() {
            return new Reply(200, 0, Map.of());
        }

        static Reply status(int status) {
            return new Reply(status, 0, Map.of());
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
    private final AtomicInteger current = new AtomicInteger();
    private final AtomicInteger maxConcurrent = new AtomicInteger();
    private volatile Function<Received, Reply> behaviour = r -> Reply.ok();

    CallbackReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    void answer(Function<Received, Reply> behaviour) {
        this.behaviour = behaviour;
    }

    List<Received> received() {
        return new ArrayList<>(received);
    }

    List<Received> receivedFor(String id) {
        return received.stream().filter(r -> id.equals(r.id())).toList();
    }

    int count() {
        return received.size();
    }

    /** The most requests the receiver held at once (from arrival until just before it answers). */
    int maxConcurrent() {
        return maxConcurrent.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        long at = System.currentTimeMillis();
        int now = current.incrementAndGet();
        maxConcurrent.accumulateAndGet(now, Math::max);
        boolean counted = true;
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Map<String, String> headers = new TreeMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.get(0)));
            Received r = new Received(exchange.getRequestURI().getPath(), headers, body, at);
            received.add(r);
            Reply reply = behaviour.apply(r);
            if (reply.delayMs() > 0) {
                try {
                    Thread.sleep(reply.delayMs());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            // Leave the in-flight count before the answer can reach the engine: the engine may start its next
            // callback as soon as it has the answer, and that one must not be counted together with this one.
            current.decrementAndGet();
            counted = false;
            reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            byte[] answer = ("status " + reply.status()).getBytes();
            exchange.sendResponseHeaders(reply.status(), answer.length);
            exchange.getResponseBody().write(answer);
        } catch (IOException closedByClient) {
            // the engine gave up (timeout): nothing to answer
        } finally {
            if (counted) {
                current.decrementAndGet();
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
