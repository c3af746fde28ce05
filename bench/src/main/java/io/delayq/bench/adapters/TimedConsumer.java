package io.delayq.bench.adapters;

import io.delayq.bench.Gate;
import io.delayq.bench.Receiver;
import io.delayq.core.Delivery;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreListener;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A minimal timer-driven PULL-lane consumer on the {@link JobStore} API, the way DESIGN.md §3 says delivery should
 * wake: never by fixed-interval polling, but by one client timer armed at the topic's next due time (from
 * {@link ReserveResult#nextDueAt()} and from {@link StoreListener#onWake}), plus a slow safety sweep.
 *
 * <p>When the timer fires, its own thread leases the due jobs, reports them and hands their acks to an
 * {@link AckBatcher} (batched across threads, flushed after 2 ms or 100 leases, like the delivery engine). Workers
 * sleep on a semaphore; a reserve that comes back full releases one, so the number of busy threads follows the load
 * (the timer thread alone at 2,000 due/s, all workers in a drain) without anyone asking Redis when nothing is due.
 */
final class TimedConsumer implements AutoCloseable {
    static final long SAFETY_SWEEP_MS = 1_000;

    private final JobStore store;
    private final String topic;
    private final int concurrency;
    private final int batch;
    private final long leaseMs;
    private final Receiver receiver;
    private final Gate gate;
    private final Semaphore kicks = new Semaphore(0);
    private final AckBatcher acks;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "delayq-bench-timer");
        t.setDaemon(true);
        return t;
    });
    private final AutoCloseable subscription;
    private final ConsumerThreads workers;
    private long armedAt = Long.MAX_VALUE;
    private ScheduledFuture<?> armed;

    TimedConsumer(JobStore store, String topic, int concurrency, int batch, long leaseMs, Gate gate, Receiver receiver) {
        this.store = store;
        this.topic = topic;
        this.concurrency = concurrency;
        this.batch = batch;
        this.leaseMs = leaseMs;
        this.receiver = receiver;
        this.gate = gate;
        this.acks = new AckBatcher(store);
        this.subscription = store.subscribe(new StoreListener() {
            @Override
            public void onWake(String t, long dueAt) {
                if (t.equals(topic)) {
                    arm(dueAt);
                }
            }
        });
        kick(); // look once at start: jobs may already be due
        this.workers = new ConsumerThreads("delayq", concurrency, gate, this::workOnce);
    }

    private void workOnce() throws InterruptedException {
        if (!kicks.tryAcquire(SAFETY_SWEEP_MS, TimeUnit.MILLISECONDS)) {
            // safety sweep: a missed wake-up costs at most this long
        }
        drain();
    }

    /** Leases, reports and acks due jobs until a batch comes back short; then arms the timer at the next due time. */
    private void drain() {
        while (workers == null || workers.running()) {
            ReserveResult r = store.reserve(topic, Delivery.PULL, batch, leaseMs);
            List<Lease> leases = r.leases();
            if (leases.size() == batch) {
                kick(); // there is probably more: bring in another worker while this one acks
            }
            if (leases.isEmpty()) {
                arm(r.nextDueAt());
                return;
            }
            List<LeaseRef> refs = new ArrayList<>(leases.size());
            for (Lease l : leases) {
                receiver.received(Integer.parseInt(l.job().id()));
                refs.add(LeaseRef.of(l));
            }
            acks.add(refs);
            if (leases.size() < batch) {
                arm(r.nextDueAt());
                return;
            }
        }
    }

    private void kick() {
        if (kicks.availablePermits() < concurrency) {
            kicks.release();
        }
    }

    /**
     * Keeps one timer, at the earliest due time anyone reported; a later one is dropped (it is re-learnt from the next
     * reserve). Armed in microseconds so that it fires just as the due millisecond begins, not up to 1 ms after.
     */
    private synchronized void arm(long dueAt) {
        if (dueAt < 0 || dueAt >= armedAt) {
            return;
        }
        if (armed != null) {
            armed.cancel(false);
        }
        armedAt = dueAt;
        Instant now = Instant.now();
        long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        long delayMicros = Math.max(0, dueAt * 1_000 - nowMicros);
        armed = timer.schedule(this::fire, delayMicros, TimeUnit.MICROSECONDS);
    }

    /**
     * The timer thread serves the due job itself (one thread hand-off less between the due time and the receipt);
     * workers join in only when it finds a full batch, or while the consumers are still gated.
     */
    private void fire() {
        synchronized (this) {
            armedAt = Long.MAX_VALUE;
            armed = null;
        }
        if (!gate.isOpen()) {
            kick();
            return;
        }
        try {
            drain();
        } catch (RuntimeException e) {
            kick(); // let a worker retry after its own error handling
        }
    }

    @Override
    public void close() throws Exception {
        try {
            subscription.close();
        } finally {
            workers.close();
            timer.shutdownNow();
            acks.close();
        }
    }
}
