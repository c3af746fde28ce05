package io.delayq.service.breaker;

import io.delayq.core.Callback;
import io.delayq.core.JobStore;
import io.delayq.core.TopicSettings;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.FailureGroup;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.core.breaker.Origins;
import io.delayq.service.auth.Scope;
import io.delayq.service.tenants.TenantTopics;

import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which callback origins a tenant's jobs use, so that a tenant's token lists those circuits and no others: an origin's
 * health is one shared fact (the same state for everyone), but which origins exist beyond its own is another tenant's
 * business. Known from what the store and the archive keep per topic, without reading jobs: the callbacks of its
 * topics' settings (the default callback and the dead-notice callback), the origins its topics' jobs were sent to or
 * held for in the last day ({@link CircuitBreakers#originsOf}, recorded by the engine: how a job's own callback URL
 * shows), and the hosts its dead letters failed on (the failure groups' {@code host}, which covers letters older
 * than that record). Only the tenant's own topics are read, so nothing another tenant's jobs use can show. Reads:
 * the settings of each of its topics, one {@code originsOf} for all of them, one page of failure groups.
 */
final class TenantOrigins {
    private static final int MAX_GROUPS = 500;

    private TenantOrigins() {
    }

    /**
     * A test of a circuit: whether it is an origin of the scope's topics.
     *
     * @param circuits the store's circuits, or {@code null} when it keeps none (then no recorded origins either)
     */
    static Predicate<OriginCircuit> of(Scope scope, JobStore store, CircuitBreakers circuits, JobArchive archive,
                                       long nowMs) {
        Set<String> origins = new HashSet<>();
        // a tenant's topics read by its patterns from the store's index by name, not filtered out of every team's
        List<String> topics = List.copyOf(new TenantTopics(store).all(scope.archiveScope()));
        for (TopicSettings settings : store.settings(topics).values()) { // one round trip where the store can
            add(origins, settings.callback());
            add(origins, settings.onDead());
        }
        if (circuits != null && !topics.isEmpty()) {
            try {
                circuits.originsOf(topics, nowMs).values().forEach(origins::addAll);
            } catch (UnsupportedOperationException notRecorded) {
                // a store that does not record them: the settings and the dead letters alone
            }
        }
        Set<String> hosts = new HashSet<>();
        try {
            for (FailureGroup g : archive.failureGroups(DeadLetterQuery.all().withScope(scope.archiveScope()),
                    MAX_GROUPS, nowMs)) {
                hosts.add(g.signature().host());
            }
        } catch (UnsupportedOperationException noGroups) {
            // an archive that does not keep letters for browsing: the topics' callbacks alone
        }
        return c -> origins.contains(c.origin()) || hosts.contains(hostPort(c.origin()))
                || hosts.contains(host(c.origin()));
    }

    private static void add(Set<String> origins, Callback callback) {
        if (callback != null && callback.url() != null) {
            try {
                origins.add(Origins.of(callback.url()));
            } catch (IllegalArgumentException notAbsolute) {
                // not an origin any circuit is kept for
            }
        }
    }

    /** {@code host:port} of an origin ({@code https://api.example.com:443}), as a failure signature names a host. */
    private static String hostPort(String origin) {
        URI uri = URI.create(origin);
        return uri.getHost() == null ? origin : uri.getHost().toLowerCase(Locale.ROOT) + ":" + uri.getPort();
    }

    /** The host alone: a failure signature leaves out a port the URL did not name. */
    private static String host(String origin) {
        URI uri = URI.create(origin);
        return uri.getHost() == null ? origin : uri.getHost().toLowerCase(Locale.ROOT);
    }
}
