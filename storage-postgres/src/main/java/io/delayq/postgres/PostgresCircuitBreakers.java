package io.delayq.postgres;

import io.delayq.core.JobRef;
import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import org.jdbi.v3.core.Jdbi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The circuits of callback origins in {@code delayq_circuits} (V9), shared by every instance on the database: each
 * call is one statement on one origin's row ({@link BreakerStatements}), timed by the database's clock, so instances
 * agree through the row and never among themselves. Failures reaching PostgreSQL are
 * {@link io.delayq.core.StoreStatus#UNAVAILABLE}, as for the store's other calls. The origins each topic's jobs use
 * are rows of {@code delayq_topic_origins} (V21): one statement writes a call's uses and trims the topics it names,
 * one reads many topics.
 */
final class PostgresCircuitBreakers implements CircuitBreakers {
    private final BreakerStatements statements;
    private final Jdbi jdbi;

    /** On the store's {@link Jdbi}, whose pool it shares. */
    PostgresCircuitBreakers(Jdbi jdbi) {
        jdbi.registerRowMapper(OriginCircuit.class, new CircuitRowMapper());
        this.statements = jdbi.onDemand(BreakerStatements.class);
        this.jdbi = jdbi;
    }

    @Override
    public OriginCircuit recordFailure(String origin, BreakerPolicy policy, int maxOrigins) {
        Objects.requireNonNull(origin, "origin");
        return PostgresCalls.call("record a failed attempt to " + origin, () -> statements.recordFailure(origin,
                policy.failureThreshold(), policy.probeIntervalMs(), policy.maxProbeIntervalMs(), maxOrigins))
                .orElse(null);
    }

    @Override
    public OriginCircuit recordSuccess(String origin) {
        Objects.requireNonNull(origin, "origin");
        return PostgresCalls.call("record a successful attempt to " + origin,
                () -> statements.recordSuccess(origin)).orElseGet(() -> OriginCircuit.closed(origin));
    }

    @Override
    public boolean claimProbe(String origin) {
        Objects.requireNonNull(origin, "origin");
        return PostgresCalls.call("claim a probe of " + origin, () -> statements.claimProbe(origin)).isPresent();
    }

    @Override
    public void updateHeld(String origin, Collection<JobRef> held, Collection<JobRef> released) {
        Objects.requireNonNull(origin, "origin");
        if (held.isEmpty() && released.isEmpty()) {
            return; // nothing to change, and no row to lock for it
        }
        String[] heldTopics = held.stream().map(JobRef::topic).toArray(String[]::new);
        String[] heldIds = held.stream().map(JobRef::id).toArray(String[]::new);
        String[] releasedTopics = released.stream().map(JobRef::topic).toArray(String[]::new);
        String[] releasedIds = released.stream().map(JobRef::id).toArray(String[]::new);
        // One transaction under the circuit row's lock, so that the count written is the set's size however many
        // instances change it at once.
        PostgresCalls.call("count the jobs held for " + origin, () -> jdbi.inTransaction(handle -> {
            BreakerStatements tx = handle.attach(BreakerStatements.class);
            tx.lockCircuit(origin);
            if (heldIds.length > 0) {
                tx.addHeld(origin, heldTopics, heldIds);
            }
            if (releasedIds.length > 0) {
                tx.releaseHeld(origin, releasedTopics, releasedIds);
            }
            tx.countHeld(origin);
            return null;
        }));
    }

    @Override
    public List<JobRef> heldJobs(String origin, int limit) {
        Objects.requireNonNull(origin, "origin");
        if (limit <= 0) {
            return List.of();
        }
        return PostgresCalls.call("read the jobs held for " + origin, () -> statements.heldJobs(origin, limit))
                .stream().map(r -> new JobRef(r.topic(), r.jobId())).toList();
    }

    @Override
    public Map<String, Long> heldByTopic(String origin) {
        Objects.requireNonNull(origin, "origin");
        Map<String, Long> out = new TreeMap<>();
        PostgresCalls.call("read the jobs held for " + origin + " by topic", () -> statements.heldByTopic(origin))
                .forEach(row -> out.put(row.topic(), row.held()));
        return out;
    }

    @Override
    public OriginCircuit circuit(String origin) {
        Objects.requireNonNull(origin, "origin");
        return PostgresCalls.call("read the circuit of " + origin, () -> statements.circuit(origin))
                .orElseGet(() -> OriginCircuit.closed(origin));
    }

    @Override
    public List<OriginCircuit> circuits(String after, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        return PostgresCalls.call("list the circuits", () -> statements.circuits(after, limit));
    }

    @Override
    public List<OriginCircuit> notableCircuits(int limit) {
        if (limit <= 0) {
            return List.of();
        }
        return PostgresCalls.call("read the open circuits", () -> statements.notable(limit));
    }

    @Override
    public long count() {
        return PostgresCalls.call("count the circuits", statements::count);
    }

    @Override
    public int expireIdle(long idleMs, int max) {
        return PostgresCalls.call("forget idle circuits", () -> statements.expireIdle(idleMs, max));
    }

    @Override
    public void recordOrigins(Map<String, Set<String>> origins, long nowMs) {
        List<String> topics = new ArrayList<>();
        List<String> used = new ArrayList<>();
        origins.forEach((topic, of) -> of.forEach(origin -> {
            topics.add(Objects.requireNonNull(topic, "topic"));
            used.add(Objects.requireNonNull(origin, "origin"));
        }));
        if (topics.isEmpty()) {
            return;
        }
        PostgresCalls.call("record the origins of " + origins.size() + " topics", () -> {
            statements.recordOrigins(topics.toArray(String[]::new), used.toArray(String[]::new), nowMs,
                    MAX_ORIGINS_PER_TOPIC, ORIGINS_RETENTION_MS);
            return null;
        });
    }

    @Override
    public Map<String, Set<String>> originsOf(Collection<String> topics, long nowMs) {
        Set<String> names = new LinkedHashSet<>(topics);
        if (names.isEmpty()) {
            return Map.of();
        }
        Map<String, Set<String>> out = new TreeMap<>();
        PostgresCalls.call("read the origins of " + names.size() + " topics",
                () -> statements.originsOf(names.toArray(String[]::new), nowMs, ORIGINS_RETENTION_MS))
                .forEach(row -> out.computeIfAbsent(row.topic(), t -> new TreeSet<>()).add(row.origin()));
        return out;
    }
}
