package io.delayq.service.delivery;

import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NackOutcome;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.RetryPolicy;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the attempts in flight and records how each one ended, then frees its slot:
 * <ul>
 *   <li>a success is acknowledged through the {@link AckBatcher} (batched, never blocks the caller);</li>
 *   <li>a failure is recorded with {@code nack}: retried after the retry policy's delay (or the receiver's
 *       {@code Retry-After}), or {@code DEAD} when attempts are exhausted. A nack blocks on the store, so callers on
 *       a timer or HTTP client thread use {@link #failedLater}, which runs it on a few store-writer threads;</li>
 *   <li>a job the circuit breaker holds is recorded with a held {@code nack} ({@link #heldLater}): postponed, its
 *       attempt given back.</li>
 * </ul>
 * After a stop's grace period the engine <i>abandons</i> what is still in flight: those attempts are not recorded,
 * their leases expire and count as the attempt.
 */
final class AttemptOutcomes {
    private static final Logger LOG = LoggerFactory.getLogger(AttemptOutcomes.class);
    private static final int EXTENSION_THREADS = 2;
    /** Pause before an extension the store could not take is tried again, while its lease lasts. */
    private static final long EXTENSION_RETRY_MS = 100;

    private final JobStore store;
    private final PolicyDefaults policy;
    private final StoreClock clock;
    private final FairScheduler slots;
    private final TopicTimers timers;
    private final DeliveryMetrics metrics;
    private final StoreErrorLog errors;
    private final AttemptBudget budget;
    private final StoreWriteTimes writeTimes;
    private final long defaultAsyncAckMs;
    private final AtomicInteger inFlight = new AtomicInteger();
    private ThreadPoolExecutor storeWriters;
    /** Lease extensions after a 202, earliest deadline first, on threads of their own: never behind a nack. */
    private ThreadPoolExecutor extensions;
    private AckBatcher acks;
    /** Set when the grace period of a stop has passed: what is still in flight is left to lease expiry. */
    private volatile boolean abandoned;

    AttemptOutcomes(JobStore store, PolicyDefaults policy, StoreClock clock, FairScheduler slots, TopicTimers timers,
                    DeliveryMetrics metrics, StoreErrorLog errors, AttemptBudget budget, StoreWriteTimes writeTimes,
                    long defaultAsyncAckMs) {
        this.store = store;
        this.policy = policy;
        this.clock = clock;
        this.slots = slots;
        this.timers = timers;
        this.metrics = metrics;
        this.errors = errors;
        this.budget = budget;
        this.writeTimes = writeTimes;
        this.defaultAsyncAckMs = defaultAsyncAckMs;
    }

    void start(int ackBatchSize, long ackFlushNanos) {
        // Store writes that follow an attempt (a failure's nack, a broadcast's publish) block on the store, so they run
        // here rather than on the HTTP client's threads; acks go to the AckBatcher, which never blocks its caller.
        storeWriters = new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                Threads.named("delayq-delivery-store", false));
        storeWriters.allowCoreThreadTimeOut(true);
        extensions = new ThreadPoolExecutor(EXTENSION_THREADS, EXTENSION_THREADS, 60, TimeUnit.SECONDS,
                new PriorityBlockingQueue<>(), Threads.named("delayq-delivery-extend", false));
        extensions.allowCoreThreadTimeOut(true);
        acks = new AckBatcher(store, ackBatchSize, ackFlushNanos, clock::storeNowMillis, budget, writeTimes);
        abandoned = false;
    }

    /** Attempts started and not yet recorded (or abandoned). */
    int inFlight() {
        return inFlight.get();
    }

    boolean abandoned() {
        return abandoned;
    }

    /** A leased job's attempt begins: it holds its slot until it is recorded. */
    void started() {
        inFlight.incrementAndGet();
    }

    /** Stop recording what is still in flight: from now on their leases expire instead. */
    void abandon() {
        abandoned = true;
    }

    /**
     * Waits for the store writers and the lease extensions to finish what they were given (up to 5 s), then flushes
     * and closes the acks.
     */
    void close() {
        storeWriters.shutdown();
        extensions.shutdown();
        try {
            storeWriters.awaitTermination(5, TimeUnit.SECONDS);
            extensions.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        acks.close();
    }

    /** Runs a blocking store write of an attempt on a store writer; false when stopping (nothing was run). */
    boolean onStoreWriter(Runnable write) {
        try {
            storeWriters.execute(write);
            return true;
        } catch (RejectedExecutionException stopping) {
            return false;
        }
    }

    /** The attempt succeeded: acknowledge it (batched) and free the slot. */
    void succeeded(TopicState ts, Lease lease, long elapsedNanos) {
        try {
            if (!acks.add(LeaseRef.of(lease), lease.deadline())) {
                LOG.debug("engine stopping: {} not acknowledged; it is delivered again after its lease", lease.ref());
            }
            metrics.delivered.mark();
            metrics.activity.delivered(ts.topic);
            ts.delivered.inc();
            if (LOG.isDebugEnabled()) {
                LOG.debug("delivered {} attempt {} in {} µs", lease.ref(), lease.attempt(), elapsedNanos / 1_000);
            }
        } finally {
            released(ts);
        }
    }

    /**
     * The receiver answered {@code 202 Accepted} and the topic ({@code asyncAck: true}) or the receiver
     * ({@code Delayq-Async-Ack: true}) said that it means "confirmed later": it confirms through the ack/nack endpoints
     * with the lease token of the {@code Delayq-Lease-Token} header. The job stays leased, its lease extended to the topic's
     * {@code asyncAckTimeout}; the slot is freed now, since the work goes on at the receiver, not here. If no
     * confirmation comes by the deadline, the lease expires and counts as a failed attempt (the engine's lease timer
     * finds the new deadline when the old one passes). A receiver that confirmed before the extension makes the
     * extension answer stale, which is the success it looks like.
     *
     * <p>The extension is part of recording the 202, not one more store write among the others: it runs on threads of
     * its own, earliest lease deadline first, so it never waits behind the nacks of failed attempts (a queue of
     * which, under load, would let the short lease of the attempt lapse and the job be delivered again while the
     * receiver is still at work). A store that cannot take it now is asked again while the lease lasts.
     */
    void acceptedLater(TopicState ts, Lease lease, TopicSettings settings) {
        metrics.accepted.mark();
        long timeoutMs = settings.asyncAckTimeoutMs() != null ? settings.asyncAckTimeoutMs() : defaultAsyncAckMs;
        released(ts); // the work goes on at the receiver: the slot is free now
        extendLater(lease, timeoutMs);
    }

    private void extendLater(Lease lease, long timeoutMs) {
        try {
            extensions.execute(new Extension(lease.deadline(), () -> extend(lease, timeoutMs)));
        } catch (RejectedExecutionException stopping) {
            LOG.info("engine stopping: the lease of {} is not extended after its 202; it expires at its first deadline"
                    + " and counts as a failed attempt", lease.ref());
        }
    }

    private void extend(Lease lease, long timeoutMs) {
        try {
            long start = System.nanoTime();
            long deadline = store.extend(LeaseRef.of(lease), timeoutMs);
            writeTimes.record(System.nanoTime() - start);
            LOG.debug("{} attempt {} accepted (202): waiting for its ack or nack until {}", lease.ref(),
                    lease.attempt(), deadline);
        } catch (StoreException e) {
            if (e.status() == StoreStatus.UNAVAILABLE) {
                retryExtension(lease, timeoutMs, e);
            } else if (clock.storeNowMillis() >= lease.deadline()) {
                metrics.lateExtensions.mark();
                LOG.warn("the lease of {} attempt {} ended before its 202 was recorded: the job is delivered again"
                        + " while the receiver may still be working on it (the store answered {})", lease.ref(),
                        lease.attempt(), e.status());
            } else {
                LOG.debug("{} was confirmed before its 202 was recorded ({})", lease.ref(), e.status());
            }
        } catch (RuntimeException e) {
            retryExtension(lease, timeoutMs, e);
        }
    }

    private void retryExtension(Lease lease, long timeoutMs, RuntimeException e) {
        if (clock.storeNowMillis() + EXTENSION_RETRY_MS < lease.deadline() && !extensions.isShutdown()
                && timers.later(() -> extendLater(lease, timeoutMs), EXTENSION_RETRY_MS * 1_000) != null) {
            return;
        }
        errors.log("extend the lease of " + lease.ref() + " after its 202 (it expires at its first deadline and counts"
                + " as a failed attempt)", e);
    }

    /** A lease extension, ordered by its lease's deadline: the one about to lapse goes first. */
    private record Extension(long deadline, Runnable write) implements Runnable, Comparable<Extension> {
        @Override
        public void run() {
            write.run();
        }

        @Override
        public int compareTo(Extension other) {
            return Long.compare(deadline, other.deadline);
        }
    }

    /** Records a failed attempt on a store writer: for callers on a timer thread or an HTTP client thread. */
    void failedLater(TopicState ts, Lease lease, TopicSettings settings, String error, Integer status,
                     Long retryAfterMs) {
        if (!onStoreWriter(() -> failed(ts, lease, settings, error, status, retryAfterMs))) {
            released(ts); // the lease expires and the job comes back
        }
    }

    /** Records a failed attempt on this thread: retried after the policy's (or the receiver's) delay, or dead. */
    void failed(TopicState ts, Lease lease, TopicSettings settings, String error, Integer status, Long retryAfterMs) {
        RetryPolicy retry = policy.retryPolicy(lease.job(), settings);
        long delay = retry.nextDelayMillis(lease.attempt(), ThreadLocalRandom.current());
        Failure failure;
        if (delay < 0) {
            failure = Failure.dead(error, status);
        } else {
            failure = Failure.retryAfter(retryAfterMs != null ? retryAfterMs : delay, error, status);
        }
        finish(ts, lease, failure);
    }

    /** Records a failed attempt in the store (retry or dead) and frees the slot. */
    void finish(TopicState ts, Lease lease, Failure failure) {
        try {
            metrics.failed.mark();
            metrics.activity.failed(ts.topic);
            ts.failed.inc();
            if (abandoned) {
                return; // stopped: the lease expires, which counts as this failed attempt
            }
            long start = System.nanoTime();
            NackOutcome outcome = store.nackOutcome(LeaseRef.of(lease), failure);
            writeTimes.record(System.nanoTime() - start);
            Job job = lease.job();
            if (outcome.status() != StoreStatus.OK) {
                LOG.debug("recording the failed attempt {} of {} answered {}", lease.attempt(), job.ref(),
                        outcome.status());
                return;
            }
            if (outcome.expired()) {
                expiredInsteadOfRetried(ts, job);
            } else if (failure.isDead()) {
                metrics.dead.mark();
                metrics.activity.dead(ts.topic, failure.deadCause(), 1);
                ts.dead.inc();
                LOG.warn("job {}/{} is dead after {} attempts: {}", job.topic(), job.id(), lease.attempt(),
                        failure.error());
            } else {
                LOG.debug("attempt {} of {} failed ({}); next in {} ms", lease.attempt(), job.ref(), failure.error(),
                        failure.retryDelayMs());
                // The store may not announce a retry that becomes the topic's earliest job; arm for it here.
                timers.armDue(ts, clock.storeNowMillis() + failure.retryDelayMs() + 1, Long.MIN_VALUE);
            }
        } catch (RuntimeException e) {
            errors.log("record the failed attempt of " + lease.ref() + " (its lease will expire instead)", e);
        } finally {
            released(ts);
        }
    }

    /**
     * The circuit breaker holds the job instead of sending it (its origin's circuit is open, or the release after a
     * close is at its rate): a held nack on a store writer postpones it without using its attempt. Not a failure, in
     * the metrics either. If it cannot be written (stopping), the lease expires, as for anything else in flight.
     */
    void heldLater(TopicState ts, Lease lease, Failure hold) {
        if (!onStoreWriter(() -> held(ts, lease, hold))) {
            released(ts);
        }
    }

    private void held(TopicState ts, Lease lease, Failure hold) {
        try {
            if (abandoned) {
                return;
            }
            long start = System.nanoTime();
            NackOutcome outcome = store.nackOutcome(LeaseRef.of(lease), hold);
            writeTimes.record(System.nanoTime() - start);
            if (outcome.status() != StoreStatus.OK) {
                LOG.debug("holding {} answered {}", lease.ref(), outcome.status());
                return;
            }
            if (outcome.expired()) {
                expiredInsteadOfRetried(ts, lease.job());
                return;
            }
            LOG.debug("{} held for {} ms: {}", lease.ref(), hold.retryDelayMs(), hold.error());
            timers.armDue(ts, clock.storeNowMillis() + hold.retryDelayMs() + 1, Long.MIN_VALUE);
        } catch (RuntimeException e) {
            errors.log("hold " + lease.ref() + " (its lease will expire instead)", e);
        } finally {
            released(ts);
        }
    }

    /**
     * The store made the job dead of its expiry instead of putting it back: its next attempt (or the end of its hold)
     * would have come after its {@code expiresAt}.
     */
    private void expiredInsteadOfRetried(TopicState ts, Job job) {
        metrics.dead.mark();
        metrics.expired(ts.topic, 1);
        ts.dead.inc();
        LOG.info("job {}/{} is dead, cause EXPIRED: it could not be delivered again before its expiry", job.topic(),
                job.id());
    }

    // ---------------------------------------------------------------- answers that end or postpone a job (issue 29)

    /**
     * The receiver answered 429/503 with a {@code Retry-After}: the job is postponed to then without using its
     * attempt (a held nack with the answer's status in the history), as a hold is; never dead for it.
     */
    void postponedLater(TopicState ts, Lease lease, String error, Integer status, long delayMs) {
        heldLater(ts, lease, Failure.postponed(delayMs, error, status));
    }

    /** The job is dead now whatever attempts it has left, for {@code cause} (a "don't retry" answer). */
    void deadLater(TopicState ts, Lease lease, String error, Integer status, io.delayq.core.DeadCause cause) {
        if (!onStoreWriter(() -> finish(ts, lease, Failure.dead(error, status, cause)))) {
            released(ts);
        }
    }

    /** The attempt is over without a record (its lease will expire): free its slot. */
    void released(TopicState ts) {
        inFlight.decrementAndGet();
        slots.release(ts, 1);
    }
}
