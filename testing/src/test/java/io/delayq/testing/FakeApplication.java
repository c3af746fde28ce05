package io.delayq.testing;

import com.sun.net.httpserver.HttpServer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Stands in for a Dropwizard application in {@link ServiceProcessTest}: {@code server <config>} on the port of
 * {@code -Ddw.server.applicationConnectors[0].port}, answering {@code GET /openapi.yaml} with the configuration file's
 * text and the {@code dw.greeting} property, and printing a line to its output.
 */
public final class FakeApplication {
    private FakeApplication() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(System.getProperty("dw.server.applicationConnectors[0].port"));
        String config = Files.readString(Path.of(args[1]));
        String body = config + "\ngreeting=" + System.getProperty("dw.greeting");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        server.createContext("/openapi.yaml", exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        System.out.println("fake application listening on " + port);
    }
}
