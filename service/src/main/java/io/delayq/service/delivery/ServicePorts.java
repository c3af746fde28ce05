package io.delayq.service.delivery;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.server.SimpleServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnector;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ports this service listens on, API and admin: the {@link CallbackGuard} refuses any callback or notice target
 * on one of them at one of this host's addresses, whatever the allow-list and {@code allowPrivateNetworks} say. The
 * admin port has unauthenticated tasks ({@code POST /tasks/log-level?level=OFF}, {@code /tasks/gc}) that a callback
 * could otherwise trigger, and the service has no business calling its own API.
 *
 * <p>Filled twice: from the configuration before anything runs (fixed ports), and from the server's connectors once it
 * has started (the ports actually bound, which is what {@code port: 0} needs). Thread-safe.
 */
public final class ServicePorts {
    private final Set<Integer> ports = ConcurrentHashMap.newKeySet();

    /** Adds a port the service listens on (0, not yet bound, is ignored). */
    public void add(int port) {
        if (port > 0) {
            ports.add(port);
        }
    }

    public boolean contains(int port) {
        return ports.contains(port);
    }

    /** The ports known now, for messages and logs. */
    public Set<Integer> known() {
        return Set.copyOf(ports);
    }

    /** Adds the configured ports now, and the bound ones when the server has started. */
    public void register(ServerFactory server, Environment environment) {
        for (ConnectorFactory connector : connectors(server)) {
            if (connector instanceof HttpConnectorFactory http) {
                add(http.getPort());
            }
        }
        environment.lifecycle().addServerLifecycleListener(started -> {
            for (Connector connector : started.getConnectors()) {
                if (connector instanceof NetworkConnector network) {
                    add(network.getLocalPort());
                }
            }
        });
    }

    private static List<ConnectorFactory> connectors(ServerFactory server) {
        if (server instanceof DefaultServerFactory multi) {
            return java.util.stream.Stream.concat(multi.getApplicationConnectors().stream(),
                    multi.getAdminConnectors().stream()).toList();
        }
        if (server instanceof SimpleServerFactory simple) {
            return List.of(simple.getConnector());
        }
        return List.of();
    }
}
