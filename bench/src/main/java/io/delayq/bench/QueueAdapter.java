package io.delayq.bench;

import java.util.List;

/**
 * One implementation's client for one run, on a fresh queue name. The shared driver ({@link Workloads}) does the
 * timing; an adapter only enqueues and consumes the way its library is meant to be used.
 */
public interface QueueAdapter extends AutoCloseable {

    /** Schedules one job and returns once the implementation acknowledged it. Called from several threads. */
    void enqueue(int id, String json, long delayMs, long intendedDueAtMs) throws Exception;

    /** Schedules a batch through the implementation's bulk path; only called when {@link Impl#bulkPath()} is not null. */
    void enqueueBulk(List<Item> items) throws Exception;

    /**
     * Starts {@code concurrency} consumers that wait at {@code gate}, then report every job they take to
     * {@code receiver} (and acknowledge it where the implementation has acknowledgements).
     */
    AutoCloseable startConsumers(int concurrency, Gate gate, Receiver receiver) throws Exception;

    @Override
    void close() throws Exception;

    /** One job of a bulk call. */
    record Item(int id, String json, long delayMs, long intendedDueAtMs) {
    }
}
