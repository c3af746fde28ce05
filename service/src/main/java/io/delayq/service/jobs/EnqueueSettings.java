package io.delayq.service.jobs;

import io.delayq.core.JobStore;
import io.delayq.core.TopicSettings;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The topic settings an enqueue resolves against (the topic's {@code maxAttempts}, and its default callback, which
 * decides the job's lane), read from the store at most once a second per topic by this instance rather than once per
 * request: that read was a store round trip of its own in front of every single-job POST.
 *
 * <p>As fresh as the delivery engine's copy ({@code ReservePump} re-reads a topic's settings after a second): a change
 * through this instance's API applies to the next enqueue at once ({@link #changed}); a change through another
 * instance, within a second. A read that raced with a change is not kept.
 */
final class EnqueueSettings {
    static final long TTL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Topics kept at most; past it the cache starts over, so topic names sent at random cannot grow it without end. */
    static final int MAX_TOPICS = 10_000;

    private record Entry(TopicSettings settings, long readAtNanos) {
    }

    private final JobStore store;
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    /** Moves on every {@link #changed}: a read that started before a change must not be cached after it. */
    private final AtomicLong changes = new AtomicLong();

    EnqueueSettings(JobStore store) {
        this.store = store;
    }

    /** The topic's settings, at most a second old. */
    TopicSettings of(String topic) {
        long now = System.nanoTime();
        Entry entry = entries.get(topic);
        if (entry != null && now - entry.readAtNanos() < TTL_NANOS) {
            return entry.settings();
        }
        long before = changes.get();
        TopicSettings settings = store.settings(topic);
        if (changes.get() == before) {
            if (entries.size() >= MAX_TOPICS) {
                entries.clear();
            }
            entries.put(topic, new Entry(settings, now));
        }
        return settings;
    }

    /** The topic's settings were changed through this instance: the next enqueue reads them again. */
    void changed(String topic) {
        changes.incrementAndGet();
        entries.remove(topic);
    }
}
