package io.delayq.fault;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A callback receiver: a local HTTP/1.1 server that records every request carrying a {@code Delayq-Id} in the
 * {@link DeliveryLog} and answers as its {@link Behaviour} says. Each receiver is a host:port of its own, as the
 * receivers of different topics are in practice, so a hanging one holds the service's connections to it and no
 * others.
 *
 * <p>One blocking thread per keep-alive connection, no hand-off (the service keeps a pool of connections to it), so a
 * callback costs the suite little of the CPU the service under test needs.
 */
final class Receiver implements AutoCloseable {
    /** How a receiver answers. */
    enum Behaviour {
        /** 200 (after {@link #thinkMs(int)}) */
        OK,
        /** 500 */
        FAIL,
        /** holds each request until {@link #release()}, then 200; after the release, 200 at once */
        HANG
    }

    private static final byte[] OK_ANSWER = answer("200 OK");
    private static final byte[] FAIL_ANSWER = answer("500 Internal Server Error");

    private final Behaviour behaviour;
    private final DeliveryLog log;
    private final ServerSocket server;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile int thinkMs;
    private volatile boolean open = true;

    Receiver(Behaviour behaviour, DeliveryLog log) throws IOException {
        this.behaviour = behaviour;
        this.log = log;
        this.server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "fault-receiver-" + behaviour.name().toLowerCase(Locale.ROOT));
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The callback URL for a topic's jobs. */
    String url(String topic) {
        return "http://127.0.0.1:" + server.getLocalPort() + "/" + behaviour.name().toLowerCase(Locale.ROOT) + "/" + topic;
    }

    /** OK receivers: wait this long before answering, so that attempts are in flight when the service is killed. */
    void thinkMs(int ms) {
        this.thinkMs = ms;
    }

    /** HANG receivers: answer the held requests, and every later one at once. */
    void release() {
        released.countDown();
    }

    boolean isReleased() {
        return released.getCount() == 0;
    }

    private void accept() {
        while (open) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                connections.add(s);
                Thread t = new Thread(() -> serve(s), "fault-receiver-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (open) {
                    System.err.println("receiver: accept failed: " + e);
                }
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = new BufferedInputStream(s.getInputStream(), 16 * 1024)) {
            OutputStream out = s.getOutputStream();
            while (open) {
                Request request = Request.read(in);
                if (request == null) {
                    return; // the service closed the connection
                }
                long arrived = System.currentTimeMillis();
                if (behaviour == Behaviour.HANG && !isReleased()) {
                    // Usually the service's timeout ends the attempt first and it closes the connection: hung. A request
                    // still open at the release is answered 200 within its timeout: delivered, late.
                    if (!holdUntilReleased(s, in)) {
                        record(request, arrived, Delivery.Answer.HUNG);
                        return;
                    }
                }
                if (behaviour == Behaviour.OK && thinkMs > 0) {
                    Thread.sleep(thinkMs);
                }
                Delivery.Answer answer = behaviour == Behaviour.FAIL ? Delivery.Answer.FAILED : Delivery.Answer.OK;
                try {
                    out.write(answer == Delivery.Answer.FAILED ? FAIL_ANSWER : OK_ANSWER);
                    out.flush();
                } catch (IOException e) {
                    record(request, arrived, Delivery.Answer.UNANSWERED);
                    throw e;
                }
                record(request, arrived, answer);
            }
        } catch (IOException e) {
            // the connection went away (the service was killed, or gave up on a hung request)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connections.remove(s);
        }
    }

    /**
     * Holds a request until {@link #release()}, watching the connection meanwhile: the service closes it when its
     * timeout ends the attempt, and a thread per abandoned connection would pile up over a long hang.
     *
     * @return true when released with the connection still open
     */
    private boolean holdUntilReleased(Socket s, InputStream in) throws IOException, InterruptedException {
        s.setSoTimeout(200);
        try {
            while (!released.await(0, TimeUnit.MILLISECONDS)) {
                try {
                    if (in.read() < 0) {
                        return false;
                    }
                } catch (SocketTimeoutException stillOpen) {
                    // nothing from the service: it is still waiting
                }
            }
            return true;
        } finally {
            s.setSoTimeout(0);
        }
    }

    private void record(Request request, long arrivedAtMs, Delivery.Answer answer) {
        if (request.id() != null) {
            log.record(new Delivery(request.topic(), request.id(), request.attempt(), arrivedAtMs, answer));
        }
    }

    private static byte[] answer(String status) {
        return ("HTTP/1.1 " + status + "\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() {
        open = false;
        release();
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

    /** The parts of a callback request the suite looks at; the body is read and dropped. */
    private record Request(String topic, String id, int attempt) {
        /** @return the next request on the connection, or null when it was closed */
        static Request read(InputStream in) throws IOException {
            String requestLine = line(in);
            if (requestLine == null) {
                return null;
            }
            long length = 0;
            boolean chunked = false;
            String topic = null;
            String id = null;
            int attempt = 0;
            for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                int colon = h.indexOf(':');
                if (colon <= 0) {
                    continue;
                }
                String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = h.substring(colon + 1).trim();
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "delayq-topic" -> topic = value;
                    case "delayq-id" -> id = value;
                    case "delayq-attempt" -> attempt = Integer.parseInt(value);
                    default -> {
                    }
                }
            }
            if (chunked) {
                for (long size; (size = Long.parseLong(requiredLine(in).split(";")[0].trim(), 16)) > 0; ) {
                    in.skipNBytes(size);
                    requiredLine(in);
                }
                while (!requiredLine(in).isEmpty()) {
                    // trailers
                }
            } else {
                in.skipNBytes(length);
            }
            return new Request(topic, id, attempt);
        }

        private static String requiredLine(InputStream in) throws IOException {
            String line = line(in);
            if (line == null) {
                throw new IOException("the connection closed in the middle of a chunked body");
            }
            return line;
        }

        private static String line(InputStream in) throws IOException {
            StringBuilder b = new StringBuilder();
            for (int c; (c = in.read()) != -1; ) {
                if (c == '\n') {
                    int end = b.length();
                    return end > 0 && b.charAt(end - 1) == '\r' ? b.substring(0, end - 1) : b.toString();
                }
                b.append((char) c);
            }
            if (b.length() == 0) {
                return null;
            }
            throw new IOException("the connection closed in the middle of a line");
        }
    }
}
