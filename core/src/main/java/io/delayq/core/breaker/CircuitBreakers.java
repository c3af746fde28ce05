package io.delayq.core.breaker;

import io.delayq.core.JobRef;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The circuits of callback origins, kept in the store so that every service instance sees the same state: when one
 * instance's attempts open an origin's circuit, every instance holds that origin's jobs. Each method is one atomic
 * operation on one origin's record (the store's clock decides every time), so instances never need to agree among
 * themselves. The number of records is the number of origins that ever failed, not of jobs.
 *
 * <p>The delivery engine calls {@link #recordFailure} for each failed attempt, and {@link #recordSuccess} only when
 * its view says the origin has failures or is open, so a healthy origin costs the store nothing.
 *
 * <p>Beside the circuits, the store keeps which origins each topic's jobs were sent to ({@link #recordOrigins},
 * {@link #originsOf}): what a tenant's token is shown of the circuits is the origins its own topics use, and a job's
 * own callback URL is known nowhere else without reading jobs.
 */
public interface CircuitBreakers {

    /** Origins with a record at most, by default ({@code delivery.breaker.maxOrigins}); see {@link #recordFailure}. */
    int DEFAULT_MAX_ORIGINS = 10_000;

    /** How long a closed circuit is kept after its last change, by default ({@code delivery.breaker.idleExpiry}). */
    long DEFAULT_IDLE_EXPIRY_MS = 3_600_000;

    /** The origins of one topic {@link #recordOrigins} keeps at most: the most recently used. */
    int MAX_ORIGINS_PER_TOPIC = 64;

    /** How long {@link #recordOrigins} keeps an origin of a topic after its last recorded use: a day. */
    long ORIGINS_RETENTION_MS = 86_400_000;

    /**
     * A failed attempt to the origin (a connection failure, a timeout or a 5xx). Closed: counts it, and opens the
     * circuit when {@code policy.failureThreshold()} failures are reached in a row (the first probe is then due
     * {@code probeIntervalMs} later). Open (a probe failed): the wait doubles, capped by {@code maxProbeIntervalMs},
     * and the next probe is due after it.
     *
     * @return the circuit after the failure
     */
    default OriginCircuit recordFailure(String origin, BreakerPolicy policy) {
        return recordFailure(origin, policy, DEFAULT_MAX_ORIGINS);
    }

    /**
     * {@link #recordFailure(String, BreakerPolicy)}, bounded: an origin without a record gets one only while fewer
     * than {@code maxOrigins} origins have one (issue 26, finding 5), so that callbacks to ever new ports or
     * subdomains cannot grow the records without bound. Counted without a lock, so concurrent failures of new origins
     * may pass the bound by a few.
     *
     * @return the circuit after the failure, or {@code null} when the origin is not tracked (no record, and the bound
     *         reached): its failures are not counted and its jobs are never held
     */
    OriginCircuit recordFailure(String origin, BreakerPolicy policy, int maxOrigins);

    /**
     * A successful attempt to the origin: the failures are reset, and an open circuit closes ({@code closedAt} set).
     *
     * @return the circuit after the success
     */
    OriginCircuit recordSuccess(String origin);

    /**
     * Claims the origin's next probe: true for exactly one caller once the open circuit's {@code nextProbeAt} has
     * passed (the next probe is then due one interval later, so a probe that hangs does not let another through at
     * once); false when closed or not yet due.
     */
    boolean claimProbe(String origin);

    /**
     * Changes the set of jobs held for the origin, whose size is the circuit's {@link OriginCircuit#heldJobs}:
     * {@code held} join it, {@code released} (attempted again, cancelled, gone) leave it. By job, so a job counts once
     * however often it is held, and releasing a job twice, or one never held, changes nothing: the count cannot drift
     * the way a counter of +1s and -1s does when a held job never comes back. An origin without a record gets none
     * for a change that leaves its set empty.
     */
    void updateHeld(String origin, Collection<JobRef> held, Collection<JobRef> released);

    /**
     * Up to {@code limit} of the jobs held for the origin, longest held first: what a caller checks against the job
     * store (still scheduled, still held?) to release the ones that are not, e.g. when the circuit closes.
     */
    List<JobRef> heldJobs(String origin, int limit);

    /**
     * The jobs held for the origin by topic (topic → how many; topics with none left out), what a tenant's token is
     * shown of an origin that other tenants' jobs use too: the sum over its own topics, never the store-wide
     * {@link OriginCircuit#heldJobs}. Read without going through the held set job by job where the store can (Redis
     * keeps the counts beside the set, changed with it); never counts a job twice, nor below zero. Empty when none
     * are held, or the origin has no held set (its circuit forgotten). Where the counts are kept apart from the set,
     * they start at the upgrade that brought them: a job held before it is in {@link #heldJobs} and in the circuit's
     * count, but counts for no topic here.
     */
    Map<String, Long> heldByTopic(String origin);

    /** The origin's circuit, or {@link OriginCircuit#closed} when the store has no record of it. */
    OriginCircuit circuit(String origin);

    /**
     * Every origin the store has a record of, by origin: every page of {@link #circuits(String, int)} (at most
     * {@code maxOrigins} and a few). For tools and tests; the service reads pages and {@link #notableCircuits}.
     */
    default List<OriginCircuit> circuits() {
        List<OriginCircuit> all = new java.util.ArrayList<>();
        String after = null;
        while (true) {
            List<OriginCircuit> page = circuits(after, 1_000);
            all.addAll(page);
            if (page.size() < 1_000) {
                return all;
            }
            after = page.get(page.size() - 1).origin();
        }
    }

    /**
     * One page of circuits by origin: those after {@code after} (exclusive; {@code null}: from the first), at most
     * {@code limit}. Served by an index in origin order, so a page costs O(limit), not O(origins).
     */
    List<OriginCircuit> circuits(String after, int limit);

    /**
     * The circuits that are open or have jobs held, by origin, at most {@code limit}: what each instance's snapshot
     * (health check, gauges) reads every 2 s, from an index of them, so its cost does not grow with the closed ones.
     */
    List<OriginCircuit> notableCircuits(int limit);

    /** How many origins have a record. */
    long count();

    /**
     * Forgets up to {@code max} closed circuits whose last change (failure, success, held job) is older than
     * {@code idleMs}, with their held sets (a held job not tried again for that long is not coming back to this
     * origin). Open circuits are never forgotten, however old. Each instance calls it now and then; concurrent calls
     * forget each circuit once.
     *
     * @return how many were forgotten
     */
    int expireIdle(long idleMs, int max);

    /**
     * Records that jobs of each topic were sent (or held) for these callback origins ({@code scheme://host:port},
     * {@link Origins#of}) at {@code nowMs}: topic → origins. An origin's last use is raised to {@code nowMs}, never
     * lowered (instances write in any order, each with its own estimate of the store's clock). The record is bounded:
     * of each topic named, the origins last used more than {@link #ORIGINS_RETENTION_MS} before {@code nowMs} are
     * dropped, and of the rest only the {@link #MAX_ORIGINS_PER_TOPIC} most recently used are kept (among equal
     * times, the greatest origins). Two instances writing one topic at once may leave it a few over the bound until its
     * next write. A topic's record goes when the topic is deleted or forgotten ({@code JobStore.deleteTopic},
     * {@code forgetIfIdle}); a topic whose jobs stop going anywhere has its record age out (on Redis the key expires
     * with its newest entry; on PostgreSQL the rows stay until the topic's next write or its deletion, and
     * {@link #originsOf} leaves them out).
     *
     * <p>Written off the delivery path: each instance writes a pair at most once a minute, all its new pairs in one
     * call a second (one pipeline, or one statement). An empty map, or a topic with an empty set, writes nothing for it.
     *
     * @throws UnsupportedOperationException when the store keeps no such record
     */
    default void recordOrigins(Map<String, Set<String>> origins, long nowMs) {
        throw new UnsupportedOperationException("this store does not record the origins of topics");
    }

    /**
     * The origins each of {@code topics} was recorded with ({@link #recordOrigins}) and used within
     * {@link #ORIGINS_RETENTION_MS} before {@code nowMs}: topic → origins, topics with none left out. One round trip
     * (per node on a cluster), at most {@link #MAX_ORIGINS_PER_TOPIC} and a few per topic.
     *
     * @throws UnsupportedOperationException when the store keeps no such record
     */
    default Map<String, Set<String>> originsOf(Collection<String> topics, long nowMs) {
        throw new UnsupportedOperationException("this store does not record the origins of topics");
    }
}
