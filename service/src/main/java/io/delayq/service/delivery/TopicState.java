package io.delayq.service.delivery;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.TopicSettings;

import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** What the engine keeps per topic: its timers, its concurrency slots and its cached settings. */
final class TopicState {
    final String topic;
    final Semaphore permits;
    /** Pump requests not yet served; the thread that moves it from 0 runs the pump (one pump per topic at a time). */
    final AtomicInteger pumpRequests = new AtomicInteger();
    final AtomicBoolean starved = new AtomicBoolean();

    volatile TopicSettings settings;
    volatile long settingsLoadedNanos;
    volatile boolean paused;

    // Guarded by this: the pending due timer and the local time (epoch µs) it fires at; likewise for leases.
    Future<?> dueTimer;
    long dueTimerAt;
    long dueTimerSeq;
    Future<?> leaseTimer;
    long leaseTimerAt;
    long leaseTimerSeq;

    /** Per-topic outcome counters ({@code delayq.delivery.topic.<topic>.delivered|failed|dead}). */
    final Counter delivered;
    final Counter failed;
    final Counter dead;

    TopicState(String topic, int maxConcurrency, MetricRegistry metrics, String prefix) {
        this.topic = topic;
        this.permits = new Semaphore(maxConcurrency);
        this.delivered = metrics.counter(prefix + "topic." + topic + ".delivered");
        this.failed = metrics.counter(prefix + "topic." + topic + ".failed");
        this.dead = metrics.counter(prefix + "topic." + topic + ".dead");
    }
}
