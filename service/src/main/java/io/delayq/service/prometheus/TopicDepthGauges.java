package io.delayq.service.prometheus;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.JobStore;
import io.delayq.core.TopicStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Per-topic depth gauges, {@code delayq.topics.<topic>.scheduled} and {@code .leased}. A topic's gauges appear the
 * first time this instance schedules a job in it (or at start for every known topic). They share one snapshot of the
 * store's counts, read at most once per {@link #REFRESH_SECONDS} however often they are scraped, for every tracked
 * topic at once: {@link JobStore#stats(java.util.Collection)}, {@value #PAGE} topics per call (one pipeline or one
 * statement each), so a scrape over thousands of topics costs a few store calls, not one per topic. While the store
 * cannot be read a gauge's value is null (unknown): {@code /metrics} shows null and the Prometheus series has no
 * sample, rather than a number a sum or an alert would take for a depth.
 */
public final class TopicDepthGauges {
    /** Every gauge is {@code PREFIX + topic + ".scheduled"} or {@code ".leased"} (the Prometheus relabelling reads them). */
    public static final String PREFIX = "delayq.topics.";

    private static final Logger LOG = LoggerFactory.getLogger(TopicDepthGauges.class);
    static final long REFRESH_SECONDS = 5;
    private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(REFRESH_SECONDS);
    /** Topics per store call. */
    static final int PAGE = 500;

    /** The counts read at {@code readAt}, and the topics whose read failed then (unknown until the next). */
    private record Snapshot(long readAt, Map<String, TopicStats> stats, Set<String> unknown) {
    }

    private final JobStore store;
    private final MetricRegistry metrics;
    private final Set<String> registered = ConcurrentHashMap.newKeySet();
    private final long refreshNanos;
    private volatile Snapshot snapshot;

    public TopicDepthGauges(JobStore store, MetricRegistry metrics) {
        this(store, metrics, REFRESH_NANOS);
    }

    /** @param refreshNanos how old the counts may get before a scrape reads them again (tests: longer than the test) */
    TopicDepthGauges(JobStore store, MetricRegistry metrics, long refreshNanos) {
        this.store = store;
        this.metrics = metrics;
        this.refreshNanos = refreshNanos;
        this.snapshot = new Snapshot(System.nanoTime() - refreshNanos - 1, Map.of(), Set.of());
    }

    /** Registers the gauges of a topic, once. */
    public void track(String topic) {
        if (!registered.add(topic)) {
            return;
        }
        metrics.gauge(PREFIX + topic + ".scheduled", () -> (Gauge<Long>) () -> {
            TopicStats now = statsOf(topic);
            return now == null ? null : now.scheduled();
        });
        metrics.gauge(PREFIX + topic + ".leased", () -> (Gauge<Long>) () -> {
            TopicStats now = statsOf(topic);
            return now == null ? null : now.leased();
        });
    }

    /**
     * The topic's counts from the snapshot; a topic tracked since the snapshot was read is read alone, once, and added
     * to it (so a new topic's gauge has a value at its first scrape). Null while its page could not be read.
     */
    private TopicStats statsOf(String topic) {
        Snapshot now = snapshot();
        TopicStats stats = now.stats().get(topic);
        if (stats != null || now.unknown().contains(topic)) {
            return stats;
        }
        try {
            stats = store.stats(topic);
            now.stats().put(topic, stats);
            return stats;
        } catch (RuntimeException e) {
            now.unknown().add(topic);
            return null;
        }
    }

    /**
     * The counts of every tracked topic, read again when older than {@link #REFRESH_SECONDS}, one call per
     * {@value #PAGE} topics; the topics of a page that could not be read are unknown until the next read.
     */
    private Snapshot snapshot() {
        Snapshot current = snapshot;
        if (System.nanoTime() - current.readAt() < refreshNanos) {
            return current;
        }
        synchronized (this) {
            current = snapshot;
            if (System.nanoTime() - current.readAt() < refreshNanos) {
                return current; // another scrape read it meanwhile
            }
            Snapshot read = new Snapshot(System.nanoTime(), new ConcurrentHashMap<>(), ConcurrentHashMap.newKeySet());
            List<String> topics = List.copyOf(registered);
            for (int from = 0; from < topics.size(); from += PAGE) {
                List<String> page = topics.subList(from, Math.min(topics.size(), from + PAGE));
                try {
                    read.stats().putAll(store.stats(page));
                } catch (RuntimeException e) {
                    read.unknown().addAll(page);
                    LOG.debug("cannot read the depth of {} topics: their gauges are unknown until the next read",
                            page.size(), e);
                }
            }
            snapshot = read;
            return read;
        }
    }

    /**
     * Removes the gauges of every topic not in {@code listed} (deleted or forgotten, on any instance: issue 26,
     * finding 12), so that the gauges do not grow with every topic ever used.
     */
    public void retainOnly(Set<String> listed) {
        for (String topic : List.copyOf(registered)) {
            if (!listed.contains(topic) && registered.remove(topic)) {
                metrics.remove(PREFIX + topic + ".scheduled");
                metrics.remove(PREFIX + topic + ".leased");
            }
        }
    }

    /** Topics with gauges, for tests. */
    Set<String> tracked() {
        return Set.copyOf(registered);
    }

    /** Registers the gauges of every topic the store knows; a store that cannot be reached is skipped. */
    public void trackKnownTopics() {
        try {
            store.topics().forEach(this::track);
        } catch (RuntimeException e) {
            LOG.warn("Cannot list topics for the depth gauges yet; each appears when a job is scheduled in it", e);
        }
    }
}
