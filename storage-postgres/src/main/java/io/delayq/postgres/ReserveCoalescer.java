package io.delayq.postgres;

import io.delayq.core.Delivery;
import io.delayq.core.Lease;
import io.delayq.core.ReserveResult;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Concurrent reserves of one lane in this process share one statement. Each {@code reserve} statement scans the lane's
 * due index from its earliest entry and locks rows {@code SKIP LOCKED}: run side by side, eight of them (a consumer's
 * eight threads) all start at the same rows, and each steps over the rows the others are locking, at the cost of a
 * lock attempt apiece, before it finds its own. Here a caller queues its request and takes the lane's lock; whoever
 * holds it runs one statement for every request queued (up to {@code limit} jobs in all) and hands each caller its
 * share, earliest first, in the order they came; a caller served meanwhile finds its answer when it gets the lock. A
 * lone caller runs its own statement at once, as before.
 *
 * <p>Every caller of a shared statement gets that statement's clock and next run time: the earliest job still
 * scheduled after all of its leases, which is what each of them would be told had it run last. Requests of different
 * lanes, or with another default lease time or expiresAfter, never share a statement.
 */
final class ReserveCoalescer {
    /** The reserve statement itself: up to {@code max} leases of the lane. */
    @FunctionalInterface
    interface Statement {
        ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs, long expiresAfterMs);
    }

    private record Key(String topic, Delivery lane, long defaultLeaseMs, long expiresAfterMs) {
    }

    private static final class Request {
        final int max;
        ReserveResult result;
        RuntimeException failure;
        boolean done;

        Request(int max) {
            this.max = max;
        }
    }

    private static final class Lane {
        final ReentrantLock lock = new ReentrantLock();
        final ConcurrentLinkedQueue<Request> queue = new ConcurrentLinkedQueue<>();
    }

    private final int limit;
    private final Statement statement;
    private final ConcurrentHashMap<Key, Lane> lanes = new ConcurrentHashMap<>();

    /**
     * @param limit     the most jobs one statement may lease (each request is at most this)
     * @param statement runs the reserve statement
     */
    ReserveCoalescer(int limit, Statement statement) {
        this.limit = limit;
        this.statement = statement;
    }

    /** As {@link io.delayq.core.JobStore#reserve}, {@code max} between 1 and the limit. */
    ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs, long expiresAfterMs) {
        Key key = new Key(topic, lane, defaultLeaseMs, expiresAfterMs);
        Lane l = lanes.computeIfAbsent(key, k -> new Lane());
        Request mine = new Request(max);
        l.queue.add(mine);
        l.lock.lock();
        try {
            // Not served by the holder before us: serve everyone queued, us among them (we are in the queue until
            // a holder takes us, and only a holder takes requests).
            while (!mine.done) {
                serve(key, l);
            }
        } finally {
            l.lock.unlock();
        }
        if (mine.failure != null) {
            throw mine.failure;
        }
        return mine.result;
    }

    /** Under the lane's lock: one statement for the requests at the head of the queue. */
    private void serve(Key key, Lane l) {
        List<Request> batch = new ArrayList<>();
        int total = 0;
        for (Request r = l.queue.peek(); r != null && (batch.isEmpty() || total + r.max <= limit); r = l.queue.peek()) {
            l.queue.poll();
            batch.add(r);
            total += r.max;
        }
        if (batch.isEmpty()) {
            throw new IllegalStateException("a reserve request left the queue unserved");
        }
        ReserveResult all;
        try {
            all = statement.reserve(key.topic(), key.lane(), total, key.defaultLeaseMs(), key.expiresAfterMs());
        } catch (RuntimeException e) {
            for (Request r : batch) {
                r.failure = e;
                r.done = true;
            }
            return;
        }
        List<Lease> leases = all.leases();
        int from = 0;
        for (Request r : batch) {
            int to = Math.min(leases.size(), from + r.max);
            // the expired count goes to the first caller only, so that a metric summing them counts each job once
            r.result = batch.size() == 1 ? all : new ReserveResult(leases.subList(from, to), all.nextDueAt(), all.now(),
                    r == batch.get(0) ? all.expired() : 0);
            r.done = true;
            from = to;
        }
    }
}
