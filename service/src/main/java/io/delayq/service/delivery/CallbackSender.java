package io.delayq.service.delivery;

import io.delayq.core.Callback;
import io.delayq.core.DeadCause;
import io.delayq.core.Job;
import io.delayq.core.Lease;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.TopicSettings;
import io.delayq.service.breaker.Admission;
import io.delayq.service.breaker.CallbackBreaker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP attempt of a push job: checks the callback URL against the {@link CallbackGuard} again, POSTs the
 * payload with the {@link CallbackHeaders} through the non-blocking {@link CallbackClient} and, when the answer comes
 * (on one of the client's threads), hands the outcome to {@link AttemptOutcomes}: 2xx is a success (except a 202
 * that the topic or the receiver marks as asynchronous, which waits for its ack or nack); any other status, a timeout,
 * a refused connection or a refused address is a failed attempt. A 429 or 503 with a {@code Retry-After} postpones the
 * job to then (capped by {@code maxRetryAfter}) without using its attempt; a status among the topic's
 * {@code noRetryStatuses}, or an answer with {@code Delayq-No-Retry: true}, ends it dead at once (cause NO_RETRY). Before the request the endpoint circuit
 * breaker ({@link CallbackBreaker}) may hold the job instead (its origin's circuit is open, or its held jobs are being
 * released at a bounded rate), and it is told what the request got.
 */
final class CallbackSender {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackSender.class);
    private static final int CHECKED_URLS = 10_000;
    /**
     * With the topic's {@code asyncAck: true} or the receiver's {@code Delayq-Async-Ack: true}: the receiver took the
     * job and confirms it later with the lease token ({@link AttemptOutcomes#acceptedLater}); else an ack like any 2xx.
     */
    private static final int ACCEPTED = 202;

    private final CallbackGuard guard;
    private final PolicyDefaults policy;
    private final StoreClock clock;
    private final AttemptOutcomes outcomes;
    private final DeliveryMetrics metrics;
    private final long maxRetryAfterMs;
    private final AttemptBudget budget;
    private final CallbackTracing tracing;
    private final CallbackBreaker breaker;
    private final ConcurrentHashMap<String, URI> checkedCallbacks = new ConcurrentHashMap<>();
    private volatile CallbackClient http;

    CallbackSender(CallbackGuard guard, PolicyDefaults policy, StoreClock clock,
                   AttemptOutcomes outcomes, DeliveryMetrics metrics, long maxRetryAfterMs, AttemptBudget budget,
                   CallbackTracing tracing, CallbackBreaker breaker) {
        this.guard = guard;
        this.policy = policy;
        this.clock = clock;
        this.outcomes = outcomes;
        this.metrics = metrics;
        this.maxRetryAfterMs = maxRetryAfterMs;
        this.budget = budget;
        this.tracing = tracing;
        this.breaker = breaker;
    }

    /** @param maxConnections connections at most to one callback host (the engine's concurrency bound) */
    void start(int maxConnections) {
        CallbackClient client = new CallbackClient(maxConnections, Math.min(5_000, policy.timeoutMs()), guard);
        client.start();
        http = client;
    }

    /** Aborts whatever is in flight (each gets a failed answer) and releases connections and threads. */
    void stop() {
        http.stop();
    }

    /** POSTs the payload; the outcome is recorded when the answer comes. Never blocks. */
    void send(TopicState ts, Lease lease, TopicSettings settings, Callback callback) {
        Job job = lease.job();
        URI uri;
        long timeoutMs;
        long attemptMs;
        try {
            uri = checkedCallback(callback.url());
            attemptMs = policy.timeoutMs(job.timeoutMs(), settings);
            timeoutMs = budget.httpTimeoutMs(attemptMs, lease.deadline() - clock.storeNowMillis());
        } catch (IllegalArgumentException refused) {
            outcomes.failedLater(ts, lease, settings, refused.getMessage(), null, null);
            return;
        }
        Admission admission = breaker.admit(lease, settings, callback.url());
        if (admission.hold() != null) {
            outcomes.heldLater(ts, lease, admission.hold()); // an open circuit: postponed, its attempt given back
            return;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("delivering {} attempt {} to {}", job.ref(), lease.attempt(), uri);
        }
        byte[] body = job.payload().getBytes(StandardCharsets.UTF_8);
        long sentNanos = System.nanoTime();
        CallbackTracing.Attempt trace = tracing.start(job, lease.attempt());
        // current while sending, so that an instrumented HTTP client (the Java agent's) makes its span a child of it
        try (var scope = trace.context().makeCurrent()) {
            // refused when the job was accepted; checked again for jobs written before a rule existed
            CallbackGuard.checkHeaders(callback.headers());
            http.post(uri, CallbackHeaders.of(lease, callback, body, ts.signer, trace.headers()), body, timeoutMs,
                    answer -> answered(ts, lease, settings, answer, sentNanos, timeoutMs, attemptMs, trace, admission));
        } catch (IllegalArgumentException badHeader) {
            trace.failed("a callback header cannot be sent");
            outcomes.failedLater(ts, lease, settings, "a callback header cannot be sent (" + badHeader.getMessage()
                    + "); fix or remove it in the job's callback", null, null);
        } catch (RuntimeException stopping) {
            trace.failed("stopping");
            outcomes.released(ts); // the client is stopping: the lease expires and the job comes back
        }
    }

    /**
     * The callback URL, checked against the guard again at delivery (the rules may have changed since it was
     * accepted). Names are not looked up here: the HTTP client's resolver checks every address a name resolves to
     * when it connects. URLs are remembered once checked (a bounded cache), so a URL is not parsed for every job.
     */
    private URI checkedCallback(String url) {
        URI known = checkedCallbacks.get(url);
        if (known != null) {
            return known;
        }
        URI uri = guard.check(url);
        if (checkedCallbacks.size() >= CHECKED_URLS) {
            checkedCallbacks.clear();
        }
        checkedCallbacks.put(url, uri);
        return uri;
    }

    /** The answer of an attempt, on an HTTP client thread: acks without blocking, hands failures to a store writer. */
    private void answered(TopicState ts, Lease lease, TopicSettings settings, CallbackClient.Answer answer,
                          long sentNanos, long timeoutMs, long attemptMs, CallbackTracing.Attempt trace,
                          Admission admission) {
        long elapsed = System.nanoTime() - sentNanos;
        if (answer.failure() != null) {
            trace.failed(FailureMessages.describe(answer.failure(), timeoutMs));
        } else {
            trace.answered(answer.status());
        }
        if (outcomes.abandoned()) {
            outcomes.released(ts); // stopped after the grace period: the lease expires, which counts as this attempt
            return;
        }
        metrics.callbackLatency.update(elapsed, TimeUnit.NANOSECONDS);
        OptionalLong wait = answer.failure() == null
                ? RetryAfter.millis(answer.retryAfter(), System.currentTimeMillis()) : OptionalLong.empty();
        breaker.answered(admission, answer.failure(), answer.status(), wait.isPresent(), attemptMs);
        if (answer.failure() == null && answer.status() == ACCEPTED && confirmsLater(settings, answer)) {
            outcomes.acceptedLater(ts, lease, settings);
            return;
        }
        if (answer.is2xx()) {
            outcomes.succeeded(ts, lease, elapsed);
            return;
        }
        String error;
        Integer status = null;
        Long retryAfter = null;
        if (answer.failure() != null) {
            error = FailureMessages.describe(answer.failure(), timeoutMs);
        } else {
            status = answer.status();
            // The body only when the topic asks: a callback may point at an internal service, whose error answers are
            // not for the producer who reads lastError.
            boolean quote = settings.showsErrorBodies() && !answer.snippet().isEmpty();
            error = "callback answered HTTP " + status + (quote ? ": " + answer.snippet() : "");
            if ((status == 429 || status == 503) && wait.isPresent()) {
                // back-pressure: the receiver says when to come back; the job waits until then without using its
                // attempt (and the breaker was told it says nothing about the origin's health)
                retryAfter = Math.min(wait.getAsLong(), maxRetryAfterMs);
                outcomes.postponedLater(ts, lease, error + ", Retry-After " + retryAfter / 1000 + " s", status,
                        retryAfter);
                return;
            }
            if (NoRetryAnswers.endsJob(settings, status, answer)) {
                outcomes.deadLater(ts, lease, error + " (" + NoRetryAnswers.why(settings, status, answer) + ")",
                        status, DeadCause.NO_RETRY);
                return;
            }
        }
        outcomes.failedLater(ts, lease, settings, error, status, retryAfter);
    }

    /**
     * Whether a 202 means "confirmed later": asked for by the topic ({@code asyncAck: true}) or by the receiver on this
     * answer. Many receivers answer 202 to mean "done"; taking it as a promise they never keep would retry their jobs
     * after the asyncAckTimeout and could end them dead.
     */
    private static boolean confirmsLater(TopicSettings settings, CallbackClient.Answer answer) {
        return settings.acceptedIsAsync() || "true".equalsIgnoreCase(answer.asyncAck() == null ? null
                : answer.asyncAck().trim());
    }
}
