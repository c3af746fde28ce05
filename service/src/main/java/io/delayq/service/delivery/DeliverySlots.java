package io.delayq.service.delivery;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Concurrency slots: callbacks in flight are bounded for all topics together ({@code maxConcurrency}) and per topic
 * ({@code maxConcurrencyPerTopic}, {@link TopicState#permits}), so one slow receiver cannot take every slot.
 *
 * <p>The pump reserves only as many jobs as it holds slots for, so a lease never waits for a slot. A topic that
 * finds none is marked <i>starved</i>; once slots are released it is pumped again a moment later
 * ({@value #REFILL_DELAY_MICROS} µs), so that one reserve refills the slots of several finished callbacks.
 */
final class DeliverySlots {
    static final long REFILL_DELAY_MICROS = 1_000;

    private final Semaphore global;
    private final int batch;
    private final TopicTimers timers;
    private final Consumer<TopicState> pumpNow;
    private final Set<TopicState> starvedTopics = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean refillScheduled = new AtomicBoolean();

    /**
     * @param maxConcurrency slots of all topics together
     * @param batch          most slots one {@link #acquire} takes (the reserve batch)
     * @param pumpNow        pumps a topic on the calling thread (a timer thread), to refill its slots
     */
    DeliverySlots(int maxConcurrency, int batch, TopicTimers timers, Consumer<TopicState> pumpNow) {
        this.global = new Semaphore(maxConcurrency);
        this.batch = batch;
        this.timers = timers;
        this.pumpNow = pumpNow;
    }

    /** Takes up to the batch size of slots, global and per topic; 0 marks the topic starved. */
    int acquire(TopicState ts) {
        while (true) {
            int got = acquireUpTo(global, batch);
            if (got > 0) {
                int topicGot = acquireUpTo(ts.permits, got);
                if (topicGot < got) {
                    global.release(got - topicGot);
                }
                if (topicGot > 0) {
                    return topicGot;
                }
            }
            // No slot: register for a refill, then look again in case one was released in between.
            ts.starved.set(true);
            starvedTopics.add(ts);
            if (global.availablePermits() == 0 || ts.permits.availablePermits() == 0) {
                return 0;
            }
            starvedTopics.remove(ts);
            ts.starved.set(false);
        }
    }

    /** Gives back {@code n} slots of the topic, and schedules a refill of starved topics. */
    void release(TopicState ts, int n) {
        ts.permits.release(n);
        global.release(n);
        if (!starvedTopics.isEmpty() && refillScheduled.compareAndSet(false, true)) {
            // Wait a moment so that one reserve call refills the slots of several finished callbacks.
            if (timers.later(this::refill, REFILL_DELAY_MICROS) == null) {
                refillScheduled.set(false); // stopping
            }
        }
    }

    private void refill() {
        refillScheduled.set(false);
        for (TopicState ts : starvedTopics) {
            if (starvedTopics.remove(ts)) {
                ts.starved.set(false);
                pumpNow.accept(ts);
            }
        }
    }

    private static int acquireUpTo(Semaphore semaphore, int max) {
        while (true) {
            int available = Math.min(semaphore.availablePermits(), max);
            if (available <= 0) {
                return 0;
            }
            if (semaphore.tryAcquire(available)) {
                return available;
            }
        }
    }
}
