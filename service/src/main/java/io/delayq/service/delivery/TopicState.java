package io.delayq.service.delivery;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.TopicSettings;

import java.util.concurrent.Future;

/** What the engine keeps per topic: its timers, its place in the {@link FairScheduler}, its cached settings and owner. */
final class TopicState {
    final String topic;

    volatile TopicSettings settings;
    volatile long settingsLoadedNanos;
    volatile boolean paused;

    /** Who owns the topic, as last looked up ({@link TopicOwners}): its signer, and when it was looked up. */
    volatile Signatures signer;
    volatile long ownerCheckedNanos;

    // Guarded by the FairScheduler's lock: the tenant share its slots count against, the slots it holds (granted to
    // its turn or in flight), and where it is in the scheduling.
    FairScheduler.Share share;
    int held;
    /** In its share's queue of ready topics. */
    boolean queued;
    /** Its turn is in progress. */
    boolean pumping;
    /** Readied during its turn: queued again after it. */
    boolean again;
    /** Ready, but holding all its slots ({@code maxConcurrencyPerTopic}): queued when one is given back. */
    boolean atTopicLimit;

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

    TopicState(String topic, MetricRegistry metrics, String prefix) {
        this.topic = topic;
        this.delivered = metrics.counter(prefix + "topic." + topic + ".delivered");
        this.failed = metrics.counter(prefix + "topic." + topic + ".failed");
        this.dead = metrics.counter(prefix + "topic." + topic + ".dead");
    }
}
