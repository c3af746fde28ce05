package io.delayq.service.history;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.DeadCause;
import io.delayq.core.JobStore;
import io.delayq.core.history.LatenessBuckets;
import io.delayq.core.history.TopicMinute;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Counts {@link TopicActivity} per topic and minute in memory and adds it to the store's history once a second
 * ({@link JobStore#addHistory}): one store call per instance per second, whatever the job rate, and shared by every
 * instance because the store adds. A flush that fails is kept and added to the next one (the store keeps nothing
 * half-written: each call is one pipeline or one statement); what is still unflushed at a crash is lost, which costs
 * the history at most a second of counts.
 */
public final class TopicHistoryRecorder implements TopicActivity, Managed {
    private static final Logger LOG = LoggerFactory.getLogger(TopicHistoryRecorder.class);
    /** Minutes held for a store that stays down: beyond this the oldest are dropped (and counted). */
    private static final int MAX_PENDING = 10_000;

    private final JobStore store;
    private final LongSupplier clock;
    private final long flushEveryMs;
    private final ConcurrentHashMap<Key, Counts> current = new ConcurrentHashMap<>();
    private final Map<Key, TopicMinute> unflushed = new HashMap<>();
    private final Counter flushFailures;
    private final Counter dropped;
    private ScheduledExecutorService flusher;

    public TopicHistoryRecorder(JobStore store, MetricRegistry metrics, LongSupplier clock, long flushEveryMs) {
        this.store = store;
        this.clock = clock;
        this.flushEveryMs = flushEveryMs;
        this.flushFailures = metrics.counter("delayq.history.flush-failures");
        this.dropped = metrics.counter("delayq.history.dropped-minutes");
    }

    @Override
    public void enqueued(String topic, int count) {
        counts(topic).enqueued.add(count);
    }

    @Override
    public void started(String topic, long latenessMs) {
        counts(topic).lateness[LatenessBuckets.indexOf(latenessMs)].increment();
    }

    @Override
    public void delivered(String topic) {
        counts(topic).delivered.increment();
    }

    @Override
    public void failed(String topic) {
        counts(topic).failed.increment();
    }

    @Override
    public void dead(String topic, DeadCause cause, int count) {
        if (count <= 0) {
            return;
        }
        Counts counts = counts(topic);
        counts.dead.add(count);
        if (cause == DeadCause.EXPIRED) {
            counts.expired.add(count);
        } else if (cause == DeadCause.NO_RETRY) {
            counts.noRetry.add(count);
        }
    }

    private Counts counts(String topic) {
        long minute = clock.getAsLong() / TopicMinute.MINUTE_MS * TopicMinute.MINUTE_MS;
        return current.computeIfAbsent(new Key(topic, minute), k -> new Counts());
    }

    @Override
    public void start() {
        flusher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-history-flusher");
            t.setDaemon(true);
            return t;
        });
        flusher.scheduleWithFixedDelay(this::flush, flushEveryMs, flushEveryMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() throws InterruptedException {
        if (flusher != null) {
            flusher.shutdown();
            flusher.awaitTermination(5, TimeUnit.SECONDS);
        }
        flush(); // the last second's counts
    }

    /** Adds what was counted since the last flush to the store; keeps it for the next flush if the store refuses. */
    public synchronized void flush() {
        long thisMinute = clock.getAsLong() / TopicMinute.MINUTE_MS * TopicMinute.MINUTE_MS;
        for (Map.Entry<Key, Counts> e : current.entrySet()) {
            TopicMinute delta = e.getValue().takeDelta(e.getKey());
            if (!delta.isEmpty()) {
                unflushed.merge(e.getKey(), delta, TopicMinute::plus);
            }
            // Counters are cumulative and read as deltas, so a count added while this runs is never lost; a minute is
            // dropped once nobody can still be counting into it (after its last delta was taken).
            if (e.getKey().minute < thisMinute - TopicMinute.MINUTE_MS) {
                TopicMinute rest = e.getValue().takeDelta(e.getKey());
                if (!rest.isEmpty()) {
                    unflushed.merge(e.getKey(), rest, TopicMinute::plus);
                }
                current.remove(e.getKey(), e.getValue());
            }
        }
        if (unflushed.isEmpty()) {
            return;
        }
        try {
            store.addHistory(List.copyOf(unflushed.values()));
            unflushed.clear();
        } catch (RuntimeException e) {
            flushFailures.inc();
            LOG.warn("could not add {} topic-minute(s) to the history (kept for the next flush): {}", unflushed.size(),
                    e.toString());
            while (unflushed.size() > MAX_PENDING) {
                Key oldest = unflushed.keySet().stream().min((a, b) -> Long.compare(a.minute, b.minute)).orElseThrow();
                unflushed.remove(oldest);
                dropped.inc();
            }
        }
    }

    private record Key(String topic, long minute) {
    }

    /**
     * One topic-minute's counters: cumulative, updated lock-free by the job threads, and read by the flusher as the
     * difference from what it read last time (so nothing added concurrently is lost, as a reset could lose it).
     */
    private static final class Counts {
        private static final int ENQUEUED = 0;
        private static final int DELIVERED = 1;
        private static final int FAILED = 2;
        private static final int DEAD = 3;
        private static final int EXPIRED = 4;
        private static final int NO_RETRY = 5;
        private static final int LATENESS = 6;

        final LongAdder enqueued = new LongAdder();
        final LongAdder delivered = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder dead = new LongAdder();
        final LongAdder expired = new LongAdder();
        final LongAdder noRetry = new LongAdder();
        final LongAdder[] lateness = new LongAdder[LatenessBuckets.COUNT];
        /** What the flusher has taken so far, in the order above; only the flusher touches it. */
        private final long[] taken = new long[LATENESS + LatenessBuckets.COUNT];

        Counts() {
            for (int i = 0; i < lateness.length; i++) {
                lateness[i] = new LongAdder();
            }
        }

        TopicMinute takeDelta(Key key) {
            long[] l = new long[lateness.length];
            for (int i = 0; i < l.length; i++) {
                l[i] = take(LATENESS + i, lateness[i]);
            }
            return new TopicMinute(key.topic, key.minute, take(ENQUEUED, enqueued), take(DELIVERED, delivered),
                    take(FAILED, failed), take(DEAD, dead), take(EXPIRED, expired), take(NO_RETRY, noRetry), l);
        }

        private long take(int slot, LongAdder adder) {
            long now = adder.sum();
            long delta = now - taken[slot];
            taken[slot] = now;
            return delta;
        }
    }
}
