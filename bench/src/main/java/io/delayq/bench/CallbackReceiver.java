package io.delayq.bench;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A local HTTP server that answers every callback 200 and reports the {@code Delayq-Id} it carried. */
final class CallbackReceiver implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(32, r -> {
        Thread t = new Thread(r, "bench-callback");
        t.setDaemon(true);
        return t;
    });
    private volatile Receiver receiver = id -> { };

    CallbackReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        server.createContext("/cb", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            String id = exchange.getRequestHeaders().getFirst("Delayq-Id");
            if (id != null) {
                try {
                    receiver.received(Integer.parseInt(id));
                } catch (NumberFormatException ignored) {
                    // not one of ours
                }
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.setExecutor(pool);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/cb";
    }

    void receiveInto(Receiver r) {
        this.receiver = r;
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
