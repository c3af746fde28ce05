package io.delayq.service.config;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.auth.TokenFactory;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.server.SimpleServerFactory;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * The development defaults of the shipped config.yml — the token {@code dev-token} (every role), {@code dev-viewer} and
 * the signing secret {@code dev-secret} — are written in the README for everyone to read. They make the one-command
 * start work with no environment set, on 127.0.0.1; on any other address they would open the service to anyone who
 * read the README. So a configuration that uses any of them starts only while every connector (API and admin port)
 * binds a loopback address, and otherwise refuses to start, naming what to set.
 */
public final class DevDefaults {
    private static final String TOKEN = "dev-token";
    private static final String VIEWER = "dev-viewer";
    private static final String SECRET = "dev-secret";

    private DevDefaults() {
    }

    /** @throws IllegalStateException when a development default is used and a connector listens beyond loopback */
    public static void refuseOffLoopback(DelayqConfiguration config) {
        List<String> used = used(config);
        if (used.isEmpty()) {
            return;
        }
        List<String> open = nonLoopbackBinds(config.getServerFactory());
        if (!open.isEmpty()) {
            throw new IllegalStateException("The configuration uses development defaults that everyone knows from the"
                    + " README: " + String.join(", ", used) + ". They are allowed only while the service listens on"
                    + " loopback addresses (127.0.0.1, ::1), but " + String.join(" and ", open) + ". Set tokens and a"
                    + " signing secret of your own (with config.yml: DELAYQ_TOKEN, DELAYQ_VIEWER_TOKEN and"
                    + " DELAYQ_SIGNING_SECRET), or bind to 127.0.0.1.");
        }
    }

    private static List<String> used(DelayqConfiguration config) {
        List<String> used = new ArrayList<>();
        byte[] token = sha256(TOKEN);
        byte[] viewer = sha256(VIEWER);
        for (TokenFactory t : config.getAuth().getTokens()) {
            byte[] hash = t.sha256();
            if (MessageDigest.isEqual(hash, token)) {
                used.add("the token " + TOKEN + " (auth token '" + t.getName() + "': config.yml's when DELAYQ_TOKEN"
                        + " is not set)");
            } else if (MessageDigest.isEqual(hash, viewer)) {
                used.add("the token " + VIEWER + " (auth token '" + t.getName() + "': config.yml's when"
                        + " DELAYQ_VIEWER_TOKEN is not set)");
            }
        }
        if (SECRET.equals(config.getDelivery().getSigningSecret())) {
            used.add("the signing secret " + SECRET + " (delivery.signingSecret: config.yml's when"
                    + " DELAYQ_SIGNING_SECRET is not set)");
        }
        return used;
    }

    /** Each connector that binds something other than loopback, described for the message. */
    static List<String> nonLoopbackBinds(ServerFactory server) {
        List<String> open = new ArrayList<>();
        if (server instanceof DefaultServerFactory factory) {
            check("server.applicationConnectors", factory.getApplicationConnectors(), open);
            check("server.adminConnectors", factory.getAdminConnectors(), open);
        } else if (server instanceof SimpleServerFactory factory) {
            check("server.connector", List.of(factory.getConnector()), open);
        } else {
            open.add("server (" + server.getClass().getSimpleName() + ") cannot be checked for its addresses");
        }
        return open;
    }

    private static void check(String field, List<ConnectorFactory> connectors, List<String> open) {
        for (int i = 0; i < connectors.size(); i++) {
            String where = connectors.size() == 1 && field.endsWith("connector") ? field : field + "[" + i + "]";
            if (!(connectors.get(i) instanceof HttpConnectorFactory http)) {
                open.add(where + " is not an HTTP connector whose address can be checked");
                continue;
            }
            String host = http.getBindHost();
            if (host == null || host.isBlank()) {
                open.add(where + " binds every interface (no bindHost)");
            } else if (!isLoopback(host)) {
                open.add(where + " binds " + host);
            }
        }
    }

    private static boolean isLoopback(String host) {
        try {
            for (InetAddress address : InetAddress.getAllByName(host)) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }
}
