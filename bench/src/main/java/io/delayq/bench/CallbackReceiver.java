package io.delayq.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A local HTTP/1.1 server that answers every callback {@code 200} and reports the {@code Delayq-Id} it carried.
 *
 * <p>One blocking thread per keep-alive connection reads a request and answers it, with no hand-off: the service
 * keeps a pool of connections to it, so a callback costs the harness a read and a write. (The JDK's
 * {@code HttpServer} passes every exchange from its dispatcher thread to an executor, two context switches per
 * callback on a 2-core machine that the service under test needs.)
 */
final class CallbackReceiver implements AutoCloseable {
    private static final byte[] OK = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private volatile Receiver receiver = id -> { };
    private volatile boolean open = true;

    CallbackReceiver() throws IOException {
        server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "bench-callback-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/cb";
    }

    void receiveInto(Receiver r) {
        this.receiver = r;
    }

    private void accept() {
        while (open) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                connections.add(s);
                Thread t = new Thread(() -> serve(s), "bench-callback");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (open) {
                    System.err.println("callback receiver: accept failed: " + e);
                }
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = new BufferedInputStream(s.getInputStream(), 16 * 1024)) {
            OutputStream out = s.getOutputStream();
            while (open) {
                String requestLine = KeepAliveHttp.line(in);
                if (requestLine == null) {
                    return; // the service closed the connection
                }
                int length = 0;
                String id = null;
                for (String h = KeepAliveHttp.line(in); h != null && !h.isEmpty(); h = KeepAliveHttp.line(in)) {
                    int colon = h.indexOf(':');
                    if (colon <= 0) {
                        continue;
                    }
                    String name = h.substring(0, colon);
                    if (name.equalsIgnoreCase("Content-Length")) {
                        length = Integer.parseInt(h.substring(colon + 1).trim());
                    } else if (name.equalsIgnoreCase("Delayq-Id")) {
                        id = h.substring(colon + 1).trim();
                    }
                }
                in.skipNBytes(length);
                report(id);
                out.write(OK);
                out.flush();
            }
        } catch (IOException e) {
            // the connection went away (the service was killed or closed it): nothing to answer
        } finally {
            connections.remove(s);
        }
    }

    private void report(String id) {
        if (id == null) {
            return;
        }
        try {
            receiver.received(Integer.parseInt(id));
        } catch (NumberFormatException ignored) {
            // not one of ours
        }
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
