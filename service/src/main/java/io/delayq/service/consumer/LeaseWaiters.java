package io.delayq.service.consumer;

import com.codahale.metrics.Meter;
import io.delayq.core.Job;
import io.delayq.core.Lease;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreListener;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.core.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Long polls for leases. A request that finds nothing due is parked here, per topic, without holding a Jetty thread,
 * and is answered when a job falls due or its {@code waitMs} passes.
 *
 * <p>Nothing polls the store: a parked topic keeps one timer at the next run time the store reported (so a job
 * scheduled before the poll started is leased when it falls due), and the store's {@link #onWake} moves that timer
 * earlier when a job is scheduled ahead of the others, on any instance. Parked requests of one topic are served in
 * arrival order. A slow sweep ({@link #SWEEP_MS}) re-checks parked topics in case a wake-up message was lost (a
 * store's notifications may be fire and forget, as Redis pub/sub is).
 *
 * <p>A parked request whose client has gone (its connection closed: a worker killed or restarted mid poll) is not
 * served: it is dropped when Jetty reports the connection closed, and checked again just before jobs are leased for
 * it, since a lease handed to nobody would only expire and cost its job an attempt. Leases taken for a client that
 * vanished during the reserve itself go to the next parked request of the topic, or back to the store without using
 * up an attempt. Only a client that goes after its answer was written (its leases are on the wire) leaves leases to
 * expire: the job comes back as its next attempt, and delivery stays at least once.
 *
 * <p>Topic names are the caller's choice, so what is kept per topic lives only while it is needed: a topic is
 * tracked while a request for it is in progress, parked, or being served, or while its timer is armed, and is
 * forgotten as soon as none of these holds ({@link #forgetIfIdle}).
 *
 * <p>Over 500 lines as one class: parking, waking and serving a topic's requests share one per-topic state under one
 * lock, and the invariants above (arrival order, no lease handed to a gone client, forgetting idle topics) hold
 * across all three; split, they would be spread over classes that must all take the same lock.
 */
final class LeaseWaiters implements StoreListener, AutoCloseable {
    static final long SWEEP_MS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(LeaseWaiters.class);

    private final LeaseIssuer issuer;
    private final ScheduledThreadPoolExecutor executor;
    private final ConcurrentMap<String, Topic> topics = new ConcurrentHashMap<>();
    private final ScheduledFuture<?> sweep;
    private final int maxParked;
    private final Meter refused;
    /** Requests parked now, counted when parked and when finished: the limit holds under concurrent requests. */
    private final AtomicInteger parkedNow = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param maxParked requests parked at once; one more that would park is refused (429)
     * @param refused   counts those refusals
     */
    LeaseWaiters(LeaseIssuer issuer, int maxParked, Meter refused) {
        this.issuer = issuer;
        this.maxParked = maxParked;
        this.refused = refused;
        AtomicInteger threads = new AtomicInteger();
        this.executor = new ScheduledThreadPoolExecutor(4, r -> {
            Thread t = new Thread(r, "delayq-lease-waiters-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.sweep = executor.scheduleWithFixedDelay(this::sweep, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Answers {@code response} with the leases of a resolved request, now or once something is due.
     *
     * @param connection the client's connection: a request whose client has gone is dropped, not served
     */
    void lease(String topicName, LeaseRequest request, AsyncResponse response, ClientConnection connection) {
        if (closed) {
            response.resume(new LeasesResponse(List.of()));
            return;
        }
        Topic topic = enter(topicName);
        try {
            park(topic, request, response, connection);
        } finally {
            leave(topic);
        }
    }

    private void park(Topic topic, LeaseRequest request, AsyncResponse response, ClientConnection connection) {
        long wakesBefore = topic.wakes.get();
        ReserveResult first = issuer.issue(topic.name, request.max(), request.leaseMs());
        topic.observeClock(first);
        if (!first.leases().isEmpty() || request.waitMs() == 0) {
            response.resume(answer(first.leases()));
            return;
        }
        if (parkedNow.incrementAndGet() > maxParked) {
            parkedNow.decrementAndGet();
            refused.mark();
            throw new TooManyConsumers("this instance has " + maxParked + " long polls waiting, its limit"
                    + " (consumer.maxParkedLeaseRequests); nothing was due: poll again after Retry-After, or another"
                    + " instance");
        }
        Waiter waiter = new Waiter(topic, request, response, connection);
        topic.add(waiter);
        connection.onGone(waiter::gone);
        try {
            waiter.timeout = executor.schedule(waiter::expire, request.waitMs(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException shuttingDown) {
            waiter.expire();
            return;
        }
        if (closed) {
            waiter.expire(); // close() may have missed it
            return;
        }
        // Jersey's own timeout is only a backstop should the timer above ever be lost.
        response.setTimeoutHandler(r -> waiter.expire());
        response.setTimeout(request.waitMs() + 10_000, TimeUnit.MILLISECONDS);
        arm(topic, first.nextDueAt());
        if (topic.wakes.get() != wakesBefore) {
            // A wake-up arrived between our reserve and parking: it may have been for us.
            try {
                executor.execute(() -> drain(topic));
            } catch (RejectedExecutionException shuttingDown) {
                waiter.expire();
            }
        }
    }

    @Override
    public void onWake(String topicName, long dueAt) {
        Topic topic = topics.get(topicName);
        if (topic == null) {
            return;
        }
        topic.wakes.incrementAndGet();
        if (topic.hasWaiters()) {
            arm(topic, dueAt);
        }
    }

    @Override
    public void onBroadcast(Job job) {
        // Broadcast jobs go to event subscribers, never to leases.
    }

    /** Answers every parked request with an empty list and stops the timers. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        sweep.cancel(false);
        for (Topic topic : topics.values()) {
            for (Waiter waiter : topic.snapshot()) {
                waiter.expire();
            }
        }
        executor.shutdownNow();
    }

    int parked() {
        return parkedNow.get();
    }

    /** Topics with parked requests, a timer or a request in progress (what this instance keeps per topic name). */
    int trackedTopics() {
        return topics.size();
    }

    private void sweep() {
        for (Topic topic : topics.values()) {
            if (topic.hasWaiters()) {
                drain(topic);
            } else {
                forgetIfIdle(topic);
            }
        }
    }

    /** The topic's entry, marked in use by one more request in progress until {@link #leave}. */
    private Topic enter(String name) {
        return topics.compute(name, (key, known) -> {
            Topic topic = known != null ? known : new Topic(key);
            synchronized (topic) {
                topic.requests++;
            }
            return topic;
        });
    }

    private void leave(Topic topic) {
        synchronized (topic) {
            topic.requests--;
        }
        forgetIfIdle(topic);
    }

    /**
     * Drops the topic's entry when nothing needs it: no request in progress, none parked, no drain, no timer. The
     * check runs inside the map's per-key lock, so a request entering meanwhile either sees the entry and keeps it,
     * or creates a new one. Never called while holding a topic's lock (enter takes the map's lock, then the topic's).
     */
    private void forgetIfIdle(Topic topic) {
        topics.computeIfPresent(topic.name, (key, known) -> known == topic && topic.idle() ? null : known);
    }

    /** Makes sure the topic's timer fires no later than {@code dueAt} (store clock); {@code -1} means nothing due. */
    private void arm(Topic topic, long dueAt) {
        if (dueAt < 0 || closed) {
            return;
        }
        synchronized (topic) {
            if (topic.waiters.isEmpty()) {
                return;
            }
            if (topic.timer != null && !topic.timer.isDone() && topic.timerAt <= dueAt) {
                return;
            }
            if (topic.timer != null) {
                topic.timer.cancel(false);
            }
            topic.timerAt = dueAt;
            long delay = Math.max(0, dueAt - topic.storeNow());
            try {
                topic.timer = executor.schedule(() -> fire(topic), delay, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                topic.timer = null; // shutting down
            }
        }
    }

    private void fire(Topic topic) {
        synchronized (topic) {
            topic.timer = null;
            topic.timerAt = Long.MAX_VALUE;
        }
        drain(topic);
    }

    /** Serves parked requests of a topic in arrival order while jobs are due. One drain per topic at a time. */
    private void drain(Topic topic) {
        synchronized (topic) {
            if (topic.draining) {
                topic.again = true;
                return;
            }
            topic.draining = true;
            topic.again = false;
        }
        long next = -1;
        try {
            while (true) {
                next = serveWhileDue(topic);
                synchronized (topic) {
                    if (!topic.again) {
                        topic.draining = false;
                        break;
                    }
                    topic.again = false;
                }
            }
        } catch (RuntimeException e) {
            synchronized (topic) {
                topic.draining = false;
            }
            LOG.warn("Serving parked lease requests of topic {} failed", topic.name, e);
        }
        arm(topic, next);
        forgetIfIdle(topic);
    }

    /** @return the topic's next run time as the store last reported it, or {@code -1} */
    private long serveWhileDue(Topic topic) {
        while (true) {
            Waiter waiter = topic.nextWaiting(w -> true);
            if (waiter == null) {
                return -1;
            }
            if (!waiter.clientPresent()) {
                // Leases for a client that has gone would only expire, each costing its job an attempt.
                waiter.goneWhileServed();
                continue;
            }
            ReserveResult result;
            try {
                result = issuer.issue(topic.name, waiter.request.max(), waiter.request.leaseMs());
            } catch (RuntimeException e) {
                waiter.fail(e);
                throw e;
            }
            topic.observeClock(result);
            if (result.leases().isEmpty()) {
                waiter.nothingDue();
                return result.nextDueAt();
            }
            if (!waiter.grant(result.leases())) {
                handOn(topic, waiter.request.leaseMs(), result.leases());
            }
            if (result.nextDueAt() < 0 || result.nextDueAt() > result.now()) {
                return result.nextDueAt();
            }
        }
    }

    /**
     * Leases taken for a client that vanished at the last moment, given to the next parked requests of the topic that
     * asked for the same lease length (their attempt numbers are still unused), and what is left given back to the
     * store without using up an attempt ({@link LeaseIssuer#giveBack}).
     */
    private void handOn(Topic topic, Long leaseMs, List<Lease> leases) {
        List<Lease> left = leases;
        while (!left.isEmpty()) {
            Waiter next = topic.nextWaiting(w -> Objects.equals(w.request.leaseMs(), leaseMs));
            if (next == null) {
                break;
            }
            if (!next.clientPresent()) {
                next.goneWhileServed();
                continue;
            }
            int n = Math.min(next.request.max(), left.size());
            if (next.grant(left.subList(0, n))) {
                left = left.subList(n, left.size());
            }
        }
        if (!left.isEmpty()) {
            issuer.giveBack(topic.name, left);
        }
    }

    private static LeasesResponse answer(List<Lease> leases) {
        List<LeaseView> views = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            views.add(LeaseView.of(lease));
        }
        return new LeasesResponse(views);
    }

    /** The parked requests of one topic and its timer. */
    private static final class Topic {
        final String name;
        final AtomicLong wakes = new AtomicLong();
        /** Store clock minus local clock, as of the last reserve, so timers can be armed for store times. */
        volatile long clockOffset;
        // guarded by this
        final Deque<Waiter> waiters = new ArrayDeque<>();
        ScheduledFuture<?> timer;
        long timerAt = Long.MAX_VALUE;
        boolean draining;
        boolean again;
        /** Lease requests in progress for this topic that have not parked or answered yet. */
        int requests;

        Topic(String name) {
            this.name = name;
        }

        void observeClock(ReserveResult result) {
            clockOffset = result.now() - System.currentTimeMillis();
        }

        long storeNow() {
            return System.currentTimeMillis() + clockOffset;
        }

        synchronized void add(Waiter waiter) {
            waiters.addLast(waiter);
        }

        synchronized void remove(Waiter waiter) {
            waiters.remove(waiter);
            if (waiters.isEmpty() && timer != null) {
                timer.cancel(false);
                timer = null;
                timerAt = Long.MAX_VALUE;
            }
        }

        synchronized boolean idle() {
            return requests == 0 && waiters.isEmpty() && timer == null && !draining;
        }

        synchronized boolean hasWaiters() {
            return !waiters.isEmpty();
        }

        synchronized List<Waiter> snapshot() {
            return new ArrayList<>(waiters);
        }

        /** The oldest parked request that {@code fits}, now marked as being served; {@code null} when none waits. */
        synchronized Waiter nextWaiting(Predicate<Waiter> fits) {
            for (Waiter waiter : waiters) {
                if (fits.test(waiter) && waiter.begin()) {
                    return waiter;
                }
            }
            return null;
        }
    }

    /**
     * One parked request. Its states make sure it is answered exactly once, whichever of "jobs granted", "wait over",
     * "client gone" and "shutting down" comes first, and that jobs leased for it are never dropped by a timeout racing
     * the reserve, nor handed to a client that has gone.
     */
    private final class Waiter {
        private static final int WAITING = 0;
        private static final int RESERVING = 1;
        private static final int DONE = 2;

        final Topic topic;
        final LeaseRequest request;
        final AsyncResponse response;
        final ClientConnection connection;
        volatile ScheduledFuture<?> timeout;
        /** Set once its place among the parked requests is given back (finish may run more than once). */
        private final AtomicBoolean uncounted = new AtomicBoolean();
        private int state = WAITING; // guarded by this
        private boolean expired; // guarded by this
        private boolean vanished; // guarded by this

        Waiter(Topic topic, LeaseRequest request, AsyncResponse response, ClientConnection connection) {
            this.topic = topic;
            this.request = request;
            this.response = response;
            this.connection = connection;
        }

        /** Whether the client still waits for the answer: its connection is open and nothing answered it yet. */
        boolean clientPresent() {
            synchronized (this) {
                if (vanished) {
                    return false;
                }
            }
            return connection.isOpen() && !response.isDone() && !response.isCancelled();
        }

        /**
         * Jetty saw the connection close: nothing is leased for this request any more. A reserve in flight for it
         * sees this when it grants, and hands its leases on.
         */
        void gone() {
            synchronized (this) {
                vanished = true;
                if (state != WAITING) {
                    return; // answered already, or being served
                }
                state = DONE;
            }
            dropGone();
        }

        /** The server found the client gone while serving this request (it is being served: state RESERVING). */
        void goneWhileServed() {
            synchronized (this) {
                vanished = true;
                state = DONE;
            }
            dropGone();
        }

        private void dropGone() {
            LOG.debug("Lease request on {}: its client has gone; it is no longer served", topic.name);
            finish();
            // Completes the request for Jetty (a graceful stop waits for requests in progress); nothing is leased.
            response.resume(new LeasesResponse(List.of()));
        }

        synchronized boolean begin() {
            if (state != WAITING) {
                return false;
            }
            state = RESERVING;
            return true;
        }

        /**
         * Answers with the leases.
         *
         * @return false when the client had gone (nothing was sent): the caller hands the leases on
         */
        boolean grant(List<Lease> leases) {
            synchronized (this) {
                state = DONE;
            }
            finish();
            boolean present = clientPresent();
            if (!present) {
                response.resume(new LeasesResponse(List.of())); // completes the request for Jetty, leases nothing
            }
            if (!present || !resume(answer(leases))) {
                LOG.debug("Lease request on {}: its client went before its {} leases were sent; they are handed on",
                        topic.name, leases.size());
                return false;
            }
            return true;
        }

        void nothingDue() {
            boolean answer;
            synchronized (this) {
                answer = expired;
                state = answer ? DONE : WAITING;
            }
            if (answer) {
                finish();
                resume(new LeasesResponse(List.of()));
            }
        }

        void fail(Throwable error) {
            synchronized (this) {
                state = DONE;
            }
            finish();
            response.resume(error);
        }

        void expire() {
            synchronized (this) {
                if (state == RESERVING) {
                    expired = true; // the reserve in flight answers
                    return;
                }
                if (state == DONE) {
                    return;
                }
                state = DONE;
            }
            finish();
            resume(new LeasesResponse(List.of()));
        }

        /** Answers; closes the connection afterwards when the probe read a byte of the client's next request. */
        private boolean resume(LeasesResponse answer) {
            if (connection.mustCloseAfterAnswer()) {
                return response.resume(Response.ok(answer).header("Connection", "close").build());
            }
            return response.resume(answer);
        }

        private void finish() {
            if (uncounted.compareAndSet(false, true)) {
                parkedNow.decrementAndGet();
            }
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            topic.remove(this);
            forgetIfIdle(topic);
        }
    }
}
