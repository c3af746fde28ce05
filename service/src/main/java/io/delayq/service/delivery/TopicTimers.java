package io.delayq.service.delivery;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The engine's timers: per topic, one <b>due timer</b> armed for the topic's next run time and one <b>lease
 * timer</b> armed for its earliest lease deadline, each keeping only the earliest time asked for (arming a later time
 * than the pending one is a no-op). Times are the store's; {@link StoreClock} turns them into local delays.
 *
 * <p>All of it runs on one small {@link ScheduledThreadPoolExecutor} (a heap of delayed tasks that waits with
 * {@code awaitNanos}, so a timer fires within a fraction of a millisecond), which also runs the engine's other short
 * tasks: pump requests, slot refills and the safety sweep. A due timer readies its topic on the timer thread itself,
 * and its turn runs there when one is free, so there is no hand-off between the due time and the store call.
 */
final class TopicTimers {
    /**
     * Timer threads: timers, turns of the {@link FairScheduler} (store calls), and the engine's other short tasks.
     * Three, so that a tenant draining a backlog on two leaves one to the others.
     */
    static final int THREADS = 3;
    private final StoreClock clock;
    private final Consumer<TopicState> dueTimerFired;
    private final BiConsumer<TopicState, Long> leaseDeadlinePassed;
    private volatile ScheduledThreadPoolExecutor scheduler;

    /**
     * @param dueTimerFired       a due timer fired, on a timer thread (the topic's turn may run on it)
     * @param leaseDeadlinePassed a lease timer fired; gets the deadline it was armed for
     */
    TopicTimers(StoreClock clock, Consumer<TopicState> dueTimerFired, BiConsumer<TopicState, Long> leaseDeadlinePassed) {
        this.clock = clock;
        this.dueTimerFired = dueTimerFired;
        this.leaseDeadlinePassed = leaseDeadlinePassed;
    }

    void start() {
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(THREADS, Threads.named("delayq-delivery-timer", false));
        pool.setRemoveOnCancelPolicy(true);
        pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        pool.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        scheduler = pool;
    }

    /** Whether timers may still fire: started and not shut down. */
    boolean running() {
        ScheduledThreadPoolExecutor pool = scheduler;
        return pool != null && !pool.isShutdown();
    }

    /** Drops every pending timer; tasks already running finish (see {@link #awaitTermination}). */
    void shutdown() {
        ScheduledThreadPoolExecutor pool = scheduler;
        if (pool != null) {
            pool.shutdown();
        }
    }

    void awaitTermination(long nanos) throws InterruptedException {
        ScheduledThreadPoolExecutor pool = scheduler;
        if (pool != null) {
            pool.awaitTermination(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        }
    }

    /** Runs {@code task} on a timer thread soon; false when stopped (or not started). */
    boolean now(Runnable task) {
        ScheduledThreadPoolExecutor pool = scheduler;
        if (pool == null) {
            return false;
        }
        try {
            pool.execute(task);
            return true;
        } catch (RejectedExecutionException stopping) {
            return false;
        }
    }

    /** Runs {@code task} on a timer thread after {@code delayMicros}; null when stopped (or not started). */
    ScheduledFuture<?> later(Runnable task, long delayMicros) {
        ScheduledThreadPoolExecutor pool = scheduler;
        if (pool == null) {
            return null;
        }
        try {
            return pool.schedule(task, delayMicros, TimeUnit.MICROSECONDS);
        } catch (RejectedExecutionException stopping) {
            return null;
        }
    }

    /** Runs {@code task} now and then every {@code periodMs} after each run ends, until shut down. */
    void every(Runnable task, long periodMs) {
        scheduler.scheduleWithFixedDelay(task, 0, periodMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Arms the topic's due timer for {@code dueAtStoreMs} by the store's clock, unless an earlier one is pending; a
     * time already past pumps the topic at once (on a timer thread).
     *
     * @param notBeforeLocalMicros a local time the timer must not fire before ({@link Long#MIN_VALUE} for none)
     */
    void armDue(TopicState ts, long dueAtStoreMs, long notBeforeLocalMicros) {
        long fireAt = Math.max(clock.localMicrosAt(dueAtStoreMs), notBeforeLocalMicros);
        long delayMicros = fireAt - clock.localMicros();
        synchronized (ts) {
            if (ts.dueTimer != null && ts.dueTimerAt <= fireAt) {
                return;
            }
            if (ts.dueTimer != null) {
                ts.dueTimer.cancel(false);
                ts.dueTimer = null;
            }
            if (delayMicros <= 0) {
                now(() -> dueTimerFired.accept(ts));
                return;
            }
            long seq = ++ts.dueTimerSeq;
            ScheduledFuture<?> timer = later(() -> dueTimerRang(ts, seq), delayMicros);
            if (timer != null) {
                ts.dueTimer = timer;
                ts.dueTimerAt = fireAt;
            }
        }
    }

    private void dueTimerRang(TopicState ts, long seq) {
        synchronized (ts) {
            if (ts.dueTimerSeq == seq) {
                ts.dueTimer = null;
            }
        }
        dueTimerFired.accept(ts);
    }

    /**
     * Arms the topic's lease timer for just after {@code deadlineStoreMs}, unless an earlier one is pending.
     *
     * @param notBeforeLocalMicros a local time the timer must not fire before ({@link Long#MIN_VALUE} for none)
     */
    void armLease(TopicState ts, long deadlineStoreMs, long notBeforeLocalMicros) {
        // +1 ms: a lease is taken back once its deadline has passed, not at it.
        long fireAt = Math.max(clock.localMicrosAt(deadlineStoreMs + 1), notBeforeLocalMicros);
        long delayMicros = Math.max(0, fireAt - clock.localMicros());
        synchronized (ts) {
            if (ts.leaseTimer != null && ts.leaseTimerAt <= fireAt) {
                return;
            }
            if (ts.leaseTimer != null) {
                ts.leaseTimer.cancel(false);
            }
            long seq = ++ts.leaseTimerSeq;
            ts.leaseTimer = later(() -> leaseTimerFired(ts, seq, deadlineStoreMs), delayMicros);
            if (ts.leaseTimer != null) {
                ts.leaseTimerAt = fireAt;
            }
        }
    }

    private void leaseTimerFired(TopicState ts, long seq, long armedForDeadline) {
        synchronized (ts) {
            if (ts.leaseTimerSeq == seq) {
                ts.leaseTimer = null;
            }
        }
        leaseDeadlinePassed.accept(ts, armedForDeadline);
    }
}
