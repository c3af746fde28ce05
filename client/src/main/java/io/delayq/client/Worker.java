package io.delayq.client;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a {@link JobHandler} over the jobs of one topic: leases due jobs with long polls (as many as it has free
 * handler slots), runs the handler on a pool of {@code concurrency} threads, extends the lease of a handler that is
 * still running after two thirds of it, acks on success and nacks on exceptions (see {@link JobHandler}).
 *
 * <pre>{@code
 * Worker worker = Worker.builder(client, "emails").concurrency(4).handler(job -> send(job.payloadAs(Email.class))).build().start();
 * ...
 * worker.close(); // stops leasing, waits for running handlers
 * }</pre>
 *
 * Delivery is at least once: a job whose ack is lost (or whose worker dies) comes back as its next attempt, so
 * handlers should be idempotent ({@link LeasedJob#id()} and {@link LeasedJob#attempt()} help).
 *
 * <p>When the handler fails on a job's last attempt ({@link LeasedJob#isLastAttempt()}), the nack makes the job dead
 * (a {@link Retry} too: the service counts a put-back as the attempt); a {@link DeadHandler} set with
 * {@link Builder#onDead} is then called with the job and what the handler threw.
 */
public final class Worker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Worker.class.getName());
    private static final AtomicInteger WORKERS = new AtomicInteger();

    private final DelayqClient client;
    private final String topic;
    private final int concurrency;
    private final JobHandler handler;
    private final DeadHandler deadHandler;
    private final Duration leaseTime;
    private final Duration pollWait;
    private final Duration shutdownTimeout;
    private final Semaphore freeSlots;
    private final ExecutorService handlers;
    private final ScheduledExecutorService extender;
    private final Thread poller;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong nacked = new AtomicLong();
    private final AtomicLong dead = new AtomicLong();
    private volatile boolean running;
    private volatile boolean crashed;
    /** Set when close() interrupts handlers: what they throw then is the interruption, not the job's failure. */
    private volatile boolean closing;
    private volatile CompletableFuture<List<LeasedJob>> currentPoll;

    private Worker(Builder b) {
        this.client = b.client;
        this.topic = b.topic;
        this.concurrency = b.concurrency;
        this.handler = Objects.requireNonNull(b.handler, "a worker needs a handler");
        this.deadHandler = b.deadHandler;
        this.leaseTime = b.leaseTime;
        this.pollWait = b.pollWait;
        this.shutdownTimeout = b.shutdownTimeout;
        this.freeSlots = new Semaphore(concurrency);
        String name = "delayq-worker-" + WORKERS.incrementAndGet() + "-" + topic;
        this.handlers = Executors.newFixedThreadPool(concurrency, threads(name + "-handler-", false));
        this.extender = Executors.newSingleThreadScheduledExecutor(threads(name + "-extender-", true));
        this.poller = threads(name + "-poller-", false).newThread(this::pollLoop);
    }

    public static Builder builder(DelayqClient client, String topic) {
        return new Builder(client, topic);
    }

    /** Starts leasing. @return this worker */
    public Worker start() {
        running = true;
        poller.start();
        return this;
    }

    /** Jobs this worker has acked so far. */
    public long acked() {
        return acked.get();
    }

    /** Jobs this worker has nacked (handler failures and {@link Retry}s) so far. */
    public long nacked() {
        return nacked.get();
    }

    /** Jobs this worker's failures made dead (handler failures or retries on a job's last attempt, nacked) so far. */
    public long dead() {
        return dead.get();
    }

    /**
     * Stops leasing and waits up to the shutdown timeout for running handlers to finish (and ack or nack). Handlers
     * still running after it are interrupted and their jobs <em>released</em>: given back without using their attempt
     * ({@link DelayqClient#release}), as are jobs leased but not started; a job on its last attempt is not made dead by
     * a worker going away. What cannot be released comes back when its lease expires.
     */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        stopPolling();
        handlers.shutdown();
        try {
            if (!handlers.awaitTermination(shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "Handlers of topic {0} still running after {1}; interrupting them"
                        + " and giving their jobs back", topic, shutdownTimeout);
                closing = true;
                releaseAll(handlers.shutdownNow());
                handlers.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            closing = true;
            releaseAll(handlers.shutdownNow());
            Thread.currentThread().interrupt();
        }
        extender.shutdownNow();
    }

    /** Jobs leased whose handler never started: given back. */
    private void releaseAll(List<Runnable> notStarted) {
        for (Runnable task : notStarted) {
            if (task instanceof Run run) {
                putBack(run.job);
                freeSlots.release();
            }
        }
    }

    /**
     * Stops dead, as a crashing process would: no more leasing, extending, acking or nacking. Running handlers are
     * abandoned (interrupted); their jobs come back to other consumers once their leases expire.
     */
    void crash() {
        crashed = true;
        running = false;
        stopPolling();
        extender.shutdownNow();
        handlers.shutdownNow();
    }

    private void stopPolling() {
        poller.interrupt();
        CompletableFuture<List<LeasedJob>> poll = currentPoll;
        if (poll != null) {
            poll.cancel(true);
        }
        try {
            poller.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pollLoop() {
        long failures = 0;
        while (running) {
            int slots;
            try {
                freeSlots.acquire();
                slots = 1 + freeSlots.drainPermits();
            } catch (InterruptedException e) {
                break;
            }
            List<LeasedJob> jobs;
            try {
                CompletableFuture<List<LeasedJob>> poll = client.leaseAsync(topic, slots, pollWait, leaseTime);
                currentPoll = poll;
                if (!running) {
                    poll.cancel(true);
                }
                jobs = poll.get();
                failures = 0;
            } catch (CancellationException | InterruptedException e) {
                freeSlots.release(slots);
                break;
            } catch (ExecutionException e) {
                freeSlots.release(slots);
                if (!running) {
                    break; // the poll was abandoned by close()
                }
                failures++;
                long pause = Math.min(10_000, 250L << Math.min(failures, 6));
                LOG.log(System.Logger.Level.WARNING, "Leasing from topic " + topic + " failed; retrying in " + pause
                        + " ms", e.getCause());
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException stop) {
                    break;
                }
                continue;
            } finally {
                currentPoll = null;
            }
            long receivedAt = System.nanoTime();
            freeSlots.release(slots - jobs.size());
            for (LeasedJob job : jobs) {
                if (!running) {
                    putBack(job);
                    freeSlots.release();
                    continue;
                }
                handlers.execute(new Run(job, receivedAt));
            }
        }
    }

    /** A leased job's handler run, recognisable among the tasks a closing pool did not start. */
    private final class Run implements Runnable {
        final LeasedJob job;
        final long receivedAt;

        Run(LeasedJob job, long receivedAt) {
            this.job = job;
            this.receivedAt = receivedAt;
        }

        @Override
        public void run() {
            Worker.this.run(job, receivedAt);
        }
    }

    private void run(LeasedJob job, long receivedAt) {
        // Extend at two thirds of the lease, counted from when the lease arrived rather than when the handler started.
        long every = Math.max(1, leaseTime.toMillis() * 2 / 3);
        long first = Math.max(0, every - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - receivedAt));
        ScheduledFuture<?> extension = crashed ? null
                : extender.scheduleAtFixedRate(() -> extend(job), first, every, TimeUnit.MILLISECONDS);
        try {
            handler.handle(job);
            stop(extension);
            if (!crashed) {
                ack(job);
            }
        } catch (Retry retry) {
            stop(extension);
            if (nack(job, retry.delay(), retry.getMessage()) && job.isLastAttempt()) {
                died(job, retry); // the service counts a put-back as the attempt: on the last one the job dies
            }
        } catch (Exception | Error e) {
            stop(extension);
            if (closing) {
                putBack(job); // interrupted by close(): the worker went away, the job did not fail
                return;
            }
            if (nack(job, null, describe(e)) && job.isLastAttempt()) {
                died(job, e);
            }
            if (e instanceof Error error && !(e instanceof AssertionError)) {
                throw error;
            }
        } finally {
            stop(extension);
            freeSlots.release();
        }
    }

    private static void stop(ScheduledFuture<?> extension) {
        if (extension != null) {
            extension.cancel(false);
        }
    }

    private void ack(LeasedJob job) {
        try {
            client.ack(job);
            acked.incrementAndGet();
        } catch (ConflictException e) {
            LOG.log(System.Logger.Level.WARNING, "Job {0}/{1} finished after its lease expired; it may run again",
                    job.topic(), job.id());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Acking job " + job.topic() + "/" + job.id()
                    + " failed; it comes back when its lease expires", e);
        }
    }

    private void extend(LeasedJob job) {
        if (crashed) {
            return;
        }
        try {
            client.extend(job, leaseTime);
        } catch (ConflictException e) {
            LOG.log(System.Logger.Level.WARNING, "The lease of job {0}/{1} was lost before its handler finished; "
                    + "another consumer may run it again", job.topic(), job.id());
            throw e; // stops this extension
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Extending the lease of job " + job.topic() + "/" + job.id()
                    + " failed; will try again", e);
        }
    }

    /** @return whether the service recorded the nack */
    private boolean nack(LeasedJob job, Duration delay, String error) {
        if (crashed) {
            return false;
        }
        try {
            client.nack(job, delay, error);
            nacked.incrementAndGet();
            return true;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Nacking job " + job.topic() + "/" + job.id()
                    + " failed; it comes back when its lease expires", e);
            return false;
        }
    }

    /** The nack of the job's last attempt was recorded: the job is dead, by this worker's failure. */
    private void died(LeasedJob job, Throwable error) {
        dead.incrementAndGet();
        if (deadHandler == null) {
            return;
        }
        try {
            deadHandler.onDead(job, error);
        } catch (Exception | AssertionError e) {
            LOG.log(System.Logger.Level.WARNING, "The onDead handler failed for job " + job.topic() + "/" + job.id()
                    + " (the job is dead either way)", e);
        }
    }

    /**
     * A job this worker holds but will not run (it is closing): released, so that it comes back at once under the
     * same attempt instead of its lease running out, which would use the attempt (and kill a job on its last one).
     */
    private void putBack(LeasedJob job) {
        if (crashed) {
            return;
        }
        try {
            client.release(job);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Giving back job " + job.topic() + "/" + job.id() + " failed; it comes"
                    + " back when its lease expires", e);
        }
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private static ThreadFactory threads(String prefix, boolean daemon) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(daemon);
            return t;
        };
    }

    /** Configures a {@link Worker}. */
    public static final class Builder {
        private final DelayqClient client;
        private final String topic;
        private int concurrency = 1;
        private JobHandler handler;
        private DeadHandler deadHandler;
        private Duration leaseTime = Duration.ofSeconds(30);
        private Duration pollWait = Duration.ofSeconds(20);
        private Duration shutdownTimeout = Duration.ofSeconds(30);

        private Builder(DelayqClient client, String topic) {
            this.client = Objects.requireNonNull(client, "client");
            this.topic = Objects.requireNonNull(topic, "topic");
        }

        /** How many jobs run at once. Default 1. */
        public Builder concurrency(int concurrency) {
            if (concurrency < 1 || concurrency > 1000) {
                throw new IllegalArgumentException("concurrency is " + concurrency + "; use 1 to 1000");
            }
            this.concurrency = concurrency;
            return this;
        }

        /** What to do with each job. Required. */
        public Builder handler(JobHandler handler) {
            this.handler = handler;
            return this;
        }

        /**
         * What to do when this worker's failure made a job dead (the handler failed on its last attempt); optional.
         */
        public Builder onDead(DeadHandler deadHandler) {
            this.deadHandler = deadHandler;
            return this;
        }

        /** How long each lease lasts; a handler running longer gets it extended every two thirds of it. Default 30 s. */
        public Builder leaseTime(Duration leaseTime) {
            if (leaseTime.toMillis() < 1) {
                throw new IllegalArgumentException("leaseTime must be at least 1 ms");
            }
            this.leaseTime = leaseTime;
            return this;
        }

        /** How long one long poll waits for a job (at most 60 s). Default 20 s. */
        public Builder pollWait(Duration pollWait) {
            if (pollWait.isNegative() || pollWait.toMillis() > 60_000) {
                throw new IllegalArgumentException("pollWait is " + pollWait + "; use 0 to 60 s");
            }
            this.pollWait = pollWait;
            return this;
        }

        /** How long {@link Worker#close()} waits for running handlers. Default 30 s. */
        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout);
            return this;
        }

        public Worker build() {
            return new Worker(this);
        }
    }
}
