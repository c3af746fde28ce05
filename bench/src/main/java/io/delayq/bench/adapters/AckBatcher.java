package io.delayq.bench.adapters;

import io.delayq.core.JobStore;
import io.delayq.core.LeaseRef;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Acknowledges leases in batches across consumer threads, like the delivery engine's {@code ackBatchSize} /
 * {@code ackFlushInterval}: a batch goes out when {@link #MAX_BATCH} leases wait, or {@link #FLUSH_MS} after the first
 * one. A receipt is recorded before its ack, so batching changes Redis cost, not the measured lateness.
 */
final class AckBatcher implements AutoCloseable {
    static final int MAX_BATCH = 100;
    static final long FLUSH_MS = 10;

    private final JobStore store;
    private final ConcurrentLinkedQueue<LeaseRef> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "delayq-bench-acks");
        t.setDaemon(true);
        return t;
    });

    AckBatcher(JobStore store) {
        this.store = store;
    }

    void add(List<LeaseRef> refs) {
        pending.addAll(refs);
        if (size.addAndGet(refs.size()) >= MAX_BATCH) {
            flush();
        } else if (scheduled.compareAndSet(false, true)) {
            flusher.schedule(() -> {
                scheduled.set(false);
                flush();
            }, FLUSH_MS, TimeUnit.MILLISECONDS);
        }
    }

    void flush() {
        while (true) {
            List<LeaseRef> batch = new ArrayList<>(MAX_BATCH);
            LeaseRef r;
            while (batch.size() < 10 * MAX_BATCH && (r = pending.poll()) != null) {
                batch.add(r);
            }
            if (batch.isEmpty()) {
                return;
            }
            size.addAndGet(-batch.size());
            store.ack(batch);
        }
    }

    @Override
    public void close() {
        flusher.shutdownNow();
        flush();
    }
}
