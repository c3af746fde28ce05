package io.delayq.core.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A real HTTP server on a free port of 127.0.0.1 that records every callback it receives and answers as the test
 * says (the JDK's {@code com.sun.net.httpserver}, so core needs neither Jetty nor Jersey).
 *
 * <p>Until {@link #answer} is called, the answer depends on the path: {@code /fail…} gets 500, {@code /slow…} gets
 * 200 after {@link #slowMs} (1 s unless set), anything else 200. A request is recorded when it arrives, before the
 * answer is worked out or delayed.
 */
public final class CallbackReceiver implements AutoCloseable {

    /** One request as received; header names are kept lower-case. */
    public record Received(String path, Map<String, String> headers, byte[] body, long receivedAtMs) {
        /** The first value of a header, by case-insensitive name, or null. */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        /** {@code Delayq-Id}. */
        public String id() {
            return header("Delayq-Id");
        }

        /** {@code Delayq-Topic}. */
        public String topic() {
            return header("Delayq-Topic");
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** How to answer: a status after a delay, with extra headers. */
    public record Reply(int status, long delayMs, Map<String, String> headers) {
        public static Reply ok() {
            return new Reply(200, 0, Map.of());
        }

        public static Reply status(int status) {
            return new Reply(status, 0, Map.of());
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "callback-receiver");
        t.setDaemon(true);
        return t;
    });
    private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
    private final AtomicInteger current = new AtomicInteger();
    private final AtomicInteger maxConcurrent = new AtomicInteger();
    private volatile long slowMs = 1_000;
    private volatile Function<Received, Reply> behaviour = this::byPath;

    public CallbackReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the callback receiver", e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /** {@code http://127.0.0.1:<port><path>}. */
    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** How long {@code /slow…} paths wait before answering while no {@link #answer} is set. */
    public void slowMs(long ms) {
        this.slowMs = ms;
    }

    /** Answers every request from now on as {@code behaviour} says (it runs on the receiver's threads). */
    public void answer(Function<Received, Reply> behaviour) {
        this.behaviour = behaviour;
    }

    /** Every request so far, in arrival order. */
    public List<Received> received() {
        return new ArrayList<>(received);
    }

    public List<Received> received(Predicate<Received> filter) {
        return received.stream().filter(filter).toList();
    }

    /** The requests whose {@code Delayq-Id} is {@code id}, in arrival order. */
    public List<Received> forJob(String id) {
        return received(r -> id.equals(r.id()));
    }

    public int count() {
        return received.size();
    }

    /** The most requests the receiver held at once (from arrival until just before it answers). */
    public int maxConcurrent() {
        return maxConcurrent.get();
    }

    /** Waits until at least {@code count} requests match, or the timeout passes; returns the matches. */
    public List<Received> await(Predicate<Received> filter, int count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Received> matches = received(filter);
        while (matches.size() < count && System.nanoTime() - deadline < 0) {
            Await.sleep(20);
            matches = received(filter);
        }
        return matches;
    }

    private Reply byPath(Received r) {
        if (r.path().startsWith("/fail")) {
            return Reply.status(500);
        }
        return r.path().startsWith("/slow") ? new Reply(200, slowMs, Map.of()) : Reply.ok();
    }

    private void handle(HttpExchange exchange) {
        long at = System.currentTimeMillis();
        maxConcurrent.accumulateAndGet(current.incrementAndGet(), Math::max);
        boolean counted = true;
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Map<String, String> headers = new TreeMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v.get(0)));
            Received r = new Received(exchange.getRequestURI().getPath(), Map.copyOf(headers), body, at);
            received.add(r);
            Reply reply = behaviour.apply(r);
            if (reply.delayMs() > 0) {
                try {
                    Thread.sleep(reply.delayMs());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            // Leave the in-flight count before the answer can reach the caller: it may send its next request as soon
            // as it has the answer, and that one must not be counted together with this one.
            current.decrementAndGet();
            counted = false;
            reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            boolean noBody = reply.status() == 204 || reply.status() == 304;
            byte[] answer = ("status " + reply.status()).getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(reply.status(), noBody ? -1 : answer.length);
            if (!noBody) {
                exchange.getResponseBody().write(answer);
            }
        } catch (IOException closedByClient) {
            // the caller gave up (a timeout): nothing to answer
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
