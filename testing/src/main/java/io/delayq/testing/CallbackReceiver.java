package io.delayq.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The one HTTP receiver of the tests, the fault suite and the benchmark: a real HTTP/1.1 server on a port of
 * 127.0.0.1 that records the callbacks it receives and answers as the test says.
 *
 * <ul>
 *   <li><b>Answers</b>: until {@link #answer} is called, by path: {@code /fail…} gets 500, {@code /slow…} 200 after
 *   {@link #slowMs} (1 s unless set), anything else 200. {@link #answer} takes a script: any status, delay and headers
 *   per request, or a {@link Reply#heldUntil hold} until the test releases it.</li>
 *   <li><b>Records</b>: every request when it arrives, before its answer is worked out or delayed ({@link #received},
 *   {@link #await}); or, built with a {@link #CallbackReceiver(Consumer) consumer}, hands each to it and keeps
 *   nothing (for callbacks by the million). {@link #onAnswered} hears what became of each request.</li>
 *   <li><b>Outages</b>: {@link #stop()} closes the port and every open connection (connections are refused from then
 *   on), {@link #start()} listens on the same port again, so a callback origin can go down and come back.</li>
 *   <li><b>Fast</b>: one blocking thread per keep-alive connection reads a request and answers it with no hand-off
 *   (the JDK's {@code HttpServer} passes each exchange to an executor, two context switches per callback on a 2-core
 *   machine the service under test needs). A slow or held answer holds only its own connection.</li>
 * </ul>
 */
public final class CallbackReceiver implements AutoCloseable {

    /** One request as received; header names are kept lower-case, the first value of each. */
    public record Received(String method, String path, Map<String, String> headers, byte[] body, long receivedAtMs) {
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

        /** {@code Delayq-Attempt}, or -1 when the request has none. */
        public int attempt() {
            String attempt = header("Delayq-Attempt");
            return attempt == null ? -1 : Integer.parseInt(attempt);
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * How to answer: a status after a delay, with extra headers; or, with {@code heldUntil}, not before that latch is
     * released (the connection watched meanwhile: a caller that gives up is {@link Outcome#ABANDONED}).
     */
    public record Reply(int status, long delayMs, Map<String, String> headers, CountDownLatch heldUntil) {
        public Reply(int status, long delayMs, Map<String, String> headers) {
            this(status, delayMs, headers, null);
        }

        public static Reply ok() {
            return new Reply(200, 0, Map.of());
        }

        public static Reply status(int status) {
            return new Reply(status, 0, Map.of());
        }

        /** {@code status} after {@code delayMs}. */
        public static Reply after(long delayMs, int status) {
            return new Reply(status, delayMs, Map.of());
        }

        /** 200 once {@code release} is counted down: at once when it already is. */
        public static Reply heldUntil(CountDownLatch release) {
            return new Reply(200, 0, Map.of(), release);
        }
    }

    /** What became of a request. */
    public enum Outcome {
        /** its answer was written */
        ANSWERED,
        /** the caller closed the connection while the answer was held */
        ABANDONED,
        /** the answer could not be written: the caller had gone */
        LOST
    }

    /** Hears what became of each request, on the receiver's threads. */
    @FunctionalInterface
    public interface AnswerListener {
        void answered(Received request, Reply reply, Outcome outcome);
    }

    private static final int BACKLOG = 1024;

    private final int port;
    private volatile Consumer<Received> consumer;
    private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger current = new AtomicInteger();
    private final AtomicInteger maxConcurrent = new AtomicInteger();
    private volatile long slowMs = 1_000;
    private volatile Function<Received, Reply> behaviour = this::byPath;
    private volatile AnswerListener listener = (request, reply, outcome) -> { };
    private ServerSocket server;

    /** Listening on a free port, recording every request. */
    public CallbackReceiver() {
        this(0, null);
    }

    /** Listening on a free port, handing each request to {@code consumer} (before its answer) and recording none. */
    public CallbackReceiver(Consumer<Received> consumer) {
        this(0, consumer);
    }

    /** Listening on {@code port}, recording every request: e.g. a receiver that comes back where one was before. */
    public static CallbackReceiver onPort(int port) {
        return new CallbackReceiver(port, null);
    }

    private CallbackReceiver(int port, Consumer<Received> consumer) {
        this.consumer = consumer;
        this.server = listen(port);
        this.port = server.getLocalPort();
        acceptOn(server);
    }

    /** {@code http://127.0.0.1:<port><path>}. */
    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    public int port() {
        return port;
    }

    /** How long {@code /slow…} paths wait before answering while no {@link #answer} is set. */
    public void slowMs(long ms) {
        this.slowMs = ms;
    }

    /** Answers every request from now on as {@code behaviour} says (it runs on the receiver's threads). */
    public void answer(Function<Received, Reply> behaviour) {
        this.behaviour = behaviour;
    }

    /** From now on hands each request to {@code consumer} (before its answer) and records none. */
    public void handTo(Consumer<Received> consumer) {
        this.consumer = consumer;
    }

    /** From now on, tells {@code listener} what became of each request. */
    public void onAnswered(AnswerListener listener) {
        this.listener = listener;
    }

    /** Every request so far, in arrival order (none when built with a consumer). */
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
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return matches;
            }
            matches = received(filter);
        }
        return matches;
    }

    /** Stops listening and drops every open connection: from now on connections to its port are refused. */
    public synchronized void stop() {
        if (server != null) {
            closeQuietly(server);
            server = null;
        }
        connections.forEach(CallbackReceiver::closeQuietly);
    }

    /** Listens on its port again (after {@link #stop()}); nothing when it is listening. */
    public synchronized void start() {
        if (server == null) {
            server = listen(port);
            acceptOn(server);
        }
    }

    private static ServerSocket listen(int port) {
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true); // the port again at once after stop(), its old connections in TIME_WAIT or not
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), BACKLOG);
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on port " + port, e);
        }
    }

    private void acceptOn(ServerSocket listening) {
        Thread acceptor = new Thread(() -> {
            while (!listening.isClosed()) {
                try {
                    Socket s = listening.accept();
                    s.setTcpNoDelay(true);
                    connections.add(s);
                    Thread t = new Thread(() -> serve(s), "callback-receiver-" + port);
                    t.setDaemon(true);
                    t.start();
                } catch (IOException closed) {
                    // stop() or close(): the loop ends
                }
            }
        }, "callback-receiver-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private Reply byPath(Received r) {
        if (r.path().startsWith("/fail")) {
            return Reply.status(500);
        }
        return r.path().startsWith("/slow") ? Reply.after(slowMs, 200) : Reply.ok();
    }

    private void serve(Socket s) {
        try (s; InputStream in = new BufferedInputStream(s.getInputStream(), 16 * 1024)) {
            OutputStream out = s.getOutputStream();
            boolean keepAlive = true;
            while (keepAlive) {
                HttpRequests.Request request = HttpRequests.read(in, out);
                if (request == null) {
                    return; // the caller closed the connection
                }
                keepAlive = request.keepAlive();
                if (!answer(s, in, out, request.received())) {
                    return;
                }
            }
        } catch (IOException | RuntimeException gone) {
            // the connection went away (the caller was killed or gave up), or stop() closed it
        } finally {
            connections.remove(s);
        }
    }

    /** @return whether the connection can carry another request */
    private boolean answer(Socket s, InputStream in, OutputStream out, Received r) throws IOException {
        maxConcurrent.accumulateAndGet(current.incrementAndGet(), Math::max);
        boolean counted = true;
        Reply reply = null;
        try {
            Consumer<Received> handTo = consumer;
            if (handTo != null) {
                handTo.accept(r);
            } else {
                received.add(r);
            }
            reply = behaviour.apply(r);
            if (reply.delayMs() > 0) {
                Thread.sleep(reply.delayMs());
            }
            if (reply.heldUntil() != null && !holdUntilReleased(s, in, reply.heldUntil())) {
                listener.answered(r, reply, Outcome.ABANDONED);
                return false;
            }
            // Leave the in-flight count before the answer can reach the caller: it may send its next request as soon
            // as it has the answer, and that one must not be counted together with this one.
            current.decrementAndGet();
            counted = false;
            try {
                out.write(HttpRequests.response(reply.status(), reply.headers()));
                out.flush();
            } catch (IOException e) {
                listener.answered(r, reply, Outcome.LOST);
                throw e;
            }
            listener.answered(r, reply, Outcome.ANSWERED);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            if (counted) {
                current.decrementAndGet();
            }
        }
    }

    /**
     * Holds a request until {@code release}, watching the connection meanwhile: a caller whose timeout ends the
     * attempt closes it, and a thread per abandoned connection would pile up over a long hold.
     *
     * @return true when released with the connection still open
     */
    private static boolean holdUntilReleased(Socket s, InputStream in, CountDownLatch release)
            throws IOException, InterruptedException {
        s.setSoTimeout(200);
        try {
            while (!release.await(0, TimeUnit.MILLISECONDS)) {
                try {
                    if (in.read() < 0) {
                        return false;
                    }
                } catch (SocketTimeoutException stillOpen) {
                    // nothing from the caller: it is still waiting
                }
            }
            return true;
        } finally {
            s.setSoTimeout(0);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        stop();
    }
}
