package io.delayq.service.breaker;

import io.delayq.core.Callback;
import io.delayq.core.JobStore;
import io.delayq.core.TopicSettings;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.FailureGroup;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.core.breaker.Origins;
import io.delayq.service.auth.Scope;

import java.net.URI;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which callback origins a tenant's jobs use, so that a tenant's token lists those circuits and no others: an origin's
 * health is one shared fact (the same state for everyone), but which origins exist beyond its own is another tenant's
 * business. Known from what the store and the archive keep per topic, without reading jobs: the callbacks of its
 * topics' settings (the default callback and the dead-notice callback), and the hosts its dead letters failed on
 * (the failure groups' {@code host}, which is how a job's own callback that keeps failing shows). An origin that only
 * a tenant's jobs' own callbacks use and that never failed a job to death is not listed; its circuit then holds none
 * of that tenant's jobs for long.
 */
final class TenantOrigins {
    private static final int MAX_GROUPS = 500;

    private TenantOrigins() {
    }

    /** A test of a circuit: whether it is an origin of the scope's topics. */
    static Predicate<OriginCircuit> of(Scope scope, JobStore store, JobArchive archive, long nowMs) {
        Set<String> origins = new HashSet<>();
        for (String topic : scope.visible(store.topics())) {
            TopicSettings settings = store.settings(topic);
            add(origins, settings.callback());
            add(origins, settings.onDead());
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
