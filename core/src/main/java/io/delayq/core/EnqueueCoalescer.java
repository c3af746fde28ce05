package io.delayq.core;


import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * Turns concurrent single enqueues into shared batch calls (group commit). A caller queues its job; whoever gets
 * one of the {@value #LEADERS} leader slots takes what is queued (up to {@value #MAX_BATCH}) and runs it as one
 * batch, the others wait for their answer. A lone caller leads its own batch of one at once, so nothing waits for a
 * timer; under load, jobs that arrive while batches are in flight share the next one, which cuts round trips per
 * job — and, on PostgreSQL, commits (each one a WAL flush) per job.
 *
 * <p>Two leaders rather than one: while one batch is in the store, the next is being sent or its answers handed out, so
 * neither Redis nor the callers sit idle during the other's half of the round trip (W1 single adds, 8 producers on
 * 2 cores: one leader 24.7k jobs/s at 2.6 Redis calls/job, two 26.6–28.3k at 2.0, four 25.8–26.6k at 3.6).
 *
 * <p>Each caller still gets its own result only after the store has answered for its job.
 */
public final class EnqueueCoalescer {
    static final int MAX_BATCH = 500;
    static final int LEADERS = 2;

    private final String backend;
    private final Function<List<NewJob>, List<EnqueueResult>> batch;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final Semaphore leaders = new Semaphore(LEADERS);

    private record Pending(NewJob job, CompletableFuture<EnqueueResult> result, Thread waiter) {
        void complete(EnqueueResult r) {
            result.complete(r);
            LockSupport.unpark(waiter);
        }

        void fail(Throwable e) {
            result.completeExceptionally(e);
            LockSupport.unpark(waiter);
        }
    }

    /**
     * @param backend the store's name for messages ("Redis", "PostgreSQL")
     * @param batch   the store's batch enqueue
     */
    public EnqueueCoalescer(String backend, Function<List<NewJob>, List<EnqueueResult>> batch) {
        this.backend = backend;
        this.batch = batch;
    }

    /**
     * Enqueues one job, in a batch shared with whatever else is queued; returns once the store has answered. The
     * topic and id are not checked here again: the store's batch enqueue checks every job before it writes any, and a
     * batch it refuses is answered job by job, so a refused job fails alone (see {@link #runOneBatch}).
     */
    public EnqueueResult submit(NewJob job) {
        Pending mine = new Pending(job, new CompletableFuture<>(), Thread.currentThread());
        queue.add(mine);
        while (!mine.result().isDone()) {
            // Lead only while something waits to be sent. Once its own job is in another leader's batch, a caller
            // that took the free leader slot anyway found nothing to send and came straight back for the slot: it
            // spun on the CPU for the whole round trip (8 producers' single POSTs through the service: the service
            // spent twice the CPU per request, most of the difference in this loop).
            if (!queue.isEmpty() && leaders.tryAcquire()) {
                try {
                    runOneBatch();
                } finally {
                    leaders.release();
                }
                // whoever is next in line leads the next batch
                Pending next = queue.peek();
                if (next != null) {
                    LockSupport.unpark(next.waiter());
                }
            } else {
                // woken when answered, or when the leader leaves; the timeout only bounds a missed hand-over
                LockSupport.parkNanos(this, 1_000_000);
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    if (!mine.result().isDone()) {
                        throw new StoreException(StoreStatus.UNAVAILABLE, "interrupted while waiting for " + backend + " to accept job "
                                + job.ref() + "; it may or may not have been scheduled (enqueue it again: it is idempotent)");
                    }
                }
            }
        }
        try {
            return mine.result().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StoreException se) {
                throw new StoreException(se.status(), se.getMessage(), se);
            }
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("unreachable: the result is complete", e);
        }
    }

    private void runOneBatch() {
        List<Pending> taken = new ArrayList<>();
        Pending next;
        while (taken.size() < MAX_BATCH && (next = queue.poll()) != null) {
            taken.add(next);
        }
        if (taken.isEmpty()) {
            return;
        }
        try {
            List<EnqueueResult> results = batch.apply(taken.stream().map(Pending::job).toList());
            for (int i = 0; i < taken.size(); i++) {
                taken.get(i).complete(results.get(i));
            }
        } catch (StoreException e) {
            taken.forEach(p -> p.fail(e));
        } catch (RuntimeException e) {
            // one bad job must not fail the others: answer each on its own
            for (Pending p : taken) {
                try {
                    p.complete(batch.apply(List.of(p.job())).get(0));
                } catch (RuntimeException each) {
                    p.fail(each);
                }
            }
        }
    }
}
