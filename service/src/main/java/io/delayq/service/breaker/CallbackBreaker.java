package io.delayq.service.breaker;

import com.codahale.metrics.MetricRegistry;
import io.delayq.core.Attempt;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.TopicSettings;
import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.service.consumer.LeaseReleases;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * The delivery engine's endpoint circuit breaker, per callback origin ({@code scheme://host:port}), shared by every
 * instance through the store's {@link CircuitBreakers}. The engine asks it before each callback ({@link #admit}) and
 * tells it what the callback got ({@link #answered}):
 * <ul>
 *   <li><b>Closed</b>: the attempt is made. A refused or reset connection, a 5xx, or a timeout of an attempt allowed
 *       at least {@code minTimeout} is recorded ({@code recordFailure}); {@code failureThreshold} of them in a row open
 *       the circuit. A shorter attempt's timeout, a 429 or 503 with {@code Retry-After} (back-pressure) and a refused
 *       address say nothing about the origin ({@link AttemptVerdict}). An answer (2xx, or a 4xx: the
 *       receiver is up) is recorded ({@code recordSuccess}) only when this instance's view shows failures, so a
 *       healthy origin costs the store nothing per job.</li>
 *   <li><b>Open</b>: the job is <em>held</em> — postponed with {@link Failure#held} until a little after the next
 *       probe, its attempt given back and a history entry saying why — except one job per probe interval, on any
 *       instance ({@code claimProbe}), which is a real attempt. A failed probe doubles the interval (capped); a
 *       successful one closes the circuit. A probe does not use a job's last attempt while jobs with attempts left
 *       can take it (a job on its last attempt may probe once the probe is an interval overdue, so an origin whose
 *       jobs are all on their last attempt is still probed).</li>
 *   <li><b>Just closed</b>: while jobs are held for the origin, they are released at {@code releasePerSecond} per
 *       instance ({@link ReleasePacer}); a job over the rate is held again until its slot.</li>
 * </ul>
 * The jobs held per origin ({@code updateHeld}) are gathered and written once a second ({@link HeldCounts}): a job
 * joins its origin's set when held and leaves it when attempted again (its last history entry a hold); when a circuit
 * closes, the jobs in the set that are no longer scheduled and held (cancelled meanwhile) leave it too
 * ({@link HeldCheck}), so that the release after it paces only for jobs really held. Decisions use this instance's
 * {@link OriginView}, read from the store at most once a second per origin. Store writes after an answer run on the
 * breaker's own thread ({@link CircuitWriter}). Any failure of the breaker itself lets the callback through: it must
 * never stop deliveries on its own account.
 *
 * <p>Every callback it is asked about, whether the topic's breaker is on or not, notes its job's topic and origin
 * ({@link OriginUses}), written to the store a second later at most once a minute per pair: which origins a tenant's
 * jobs use, so that its token lists their circuits ({@link TenantOrigins}) even when only the jobs' own callback URLs
 * name them.
 */
public final class CallbackBreaker {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackBreaker.class);
    /** Held jobs come back this long after the next probe is due, so a quick probe has answered by then. */
    static final long PROBE_ANSWER_MARGIN_MS = 1_000;
    /** Held jobs are spread over up to this long after that (at most one probe interval), not all due at once. */
    static final long MAX_SPREAD_MS = 10_000;

    private final CircuitBreakers circuits;
    private final TopicBreakerPolicies policies;
    private final LongSupplier storeNowMs;
    private final BreakerMetrics metrics;
    private final CircuitViews views;
    private final HeldCounts held = new HeldCounts();
    private final OriginUses uses;
    private final HeldCheck heldCheck;
    private final CircuitWriter writer;
    private final long minTimeoutMs;
    private final int maxOrigins;
    private final UntrackedOrigins untracked;

    /**
     * @param minTimeoutMs attempts allowed less time than this say nothing about their origin when they time out
     * @param storeNowMs   the store's clock as this instance estimates it (epoch ms), which the circuits' times use
     */
    public CallbackBreaker(JobStore store, BreakerPolicy defaults, long minTimeoutMs, LongSupplier storeNowMs,
                           MetricRegistry registry) {
        this(store, defaults, minTimeoutMs, CircuitBreakers.DEFAULT_MAX_ORIGINS,
                CircuitBreakers.DEFAULT_IDLE_EXPIRY_MS, storeNowMs, registry);
    }

    /**
     * @param maxOrigins   origins with a circuit at most; a new one beyond is not tracked
     * @param idleExpiryMs a closed circuit whose last change is older than this is forgotten
     */
    public CallbackBreaker(JobStore store, BreakerPolicy defaults, long minTimeoutMs, int maxOrigins,
                           long idleExpiryMs, LongSupplier storeNowMs, MetricRegistry registry) {
        this.minTimeoutMs = minTimeoutMs;
        this.maxOrigins = maxOrigins;
        this.circuits = circuitsOf(store, defaults);
        this.policies = new TopicBreakerPolicies(defaults);
        this.storeNowMs = storeNowMs;
        this.metrics = new BreakerMetrics(registry);
        this.untracked = new UntrackedOrigins(metrics.untracked, maxOrigins);
        this.views = circuits == null ? null : new CircuitViews(circuits);
        this.uses = new OriginUses(storeNowMs);
        this.writer = circuits == null ? null : new CircuitWriter(circuits, held, uses, idleExpiryMs);
        this.heldCheck = circuits == null ? null : new HeldCheck(store, circuits, held);
    }

    private static CircuitBreakers circuitsOf(JobStore store, BreakerPolicy defaults) {
        try {
            return store.circuitBreakers();
        } catch (UnsupportedOperationException none) {
            if (defaults.enabled()) {
                LOG.warn("delivery.breaker is enabled but the store keeps no circuit breakers ({}); callbacks go"
                        + " without a breaker", none.getMessage());
            }
            return null;
        }
    }

    public void start() {
        if (writer != null) {
            writer.start();
        }
    }

    /** Writes what is still queued and the last held counts; call before the store closes. */
    public void stop() {
        if (writer != null) {
            writer.stop();
        }
    }

    /**
     * Before an attempt to {@code callbackUrl}: send it, or hold the job ({@link Admission#hold()}). Never throws. May
     * read the store (at most once a second per origin, and to claim a due probe), never writes it per job. Notes the
     * job's topic and origin either way ({@link OriginUses}).
     */
    public Admission admit(Lease lease, TopicSettings settings, String callbackUrl) {
        if (circuits == null) {
            return Admission.UNTRACKED;
        }
        try {
            String origin = views.originOf(callbackUrl);
            if (origin != null) {
                uses.note(lease.job().topic(), origin);
            }
            return decide(lease, settings, origin);
        } catch (RuntimeException e) {
            LOG.warn("circuit breaker: could not decide about {} ({}); sending it", lease.ref(), e.toString());
            return Admission.UNTRACKED;
        }
    }

    private Admission decide(Lease lease, TopicSettings settings, String origin) {
        Job job = lease.job();
        boolean heldBefore = lastEntryHeld(job);
        BreakerPolicy policy = policies.of(settings);
        if (!policy.enabled() && !heldBefore) {
            return Admission.UNTRACKED;
        }
        if (origin == null) {
            return Admission.UNTRACKED;
        }
        if (heldBefore) {
            held.release(origin, job.ref()); // attempted again (or held again, which adds it back)
        }
        if (!policy.enabled()) {
            return Admission.UNTRACKED;
        }
        OriginView view = views.fresh(origin);
        OriginCircuit circuit = view.circuit();
        long now = storeNowMs.getAsLong();
        if (circuit.isOpen()) {
            if (now >= circuit.nextProbeAt() && mayProbe(lease, circuit, policy, now) && view.mayClaimProbe(now)) {
                if (circuits.claimProbe(origin)) {
                    view.probeClaimed(now);
                    metrics.probes.mark();
                    LOG.info("circuit breaker: probing {} (open since {}) with {} attempt {}", origin,
                            HoldReasons.time(circuit.openedAt()), lease.ref(), lease.attempt());
                    return Admission.send(view, policy, true);
                }
                view.update(circuits.circuit(origin)); // another instance probes; its next one is an interval on
                circuit = view.circuit();
                if (!circuit.isOpen()) {
                    return Admission.send(view, policy, false);
                }
            }
            long until = Math.max(now, circuit.nextProbeAt()) + PROBE_ANSWER_MARGIN_MS + spread(circuit, policy);
            return hold(view, job, policy, until - now, HoldReasons.open(origin, circuit.openedAt(), until));
        }
        int rate = policy.releasePerSecond();
        if (view.releasing(circuit, now, rate)) {
            long slot = view.pacer.slot(job.ref(), now, rate);
            if (slot > 0) {
                return hold(view, job, policy, slot - now,
                        HoldReasons.releasing(origin, circuit.closedAt(), rate, slot));
            }
        }
        return Admission.send(view, policy, false);
    }

    /**
     * What an admitted attempt got: {@code failure} (no answer) or {@code status}. Records a failure when the view is
     * closed or the attempt was the probe (an attempt that was in flight when the circuit opened says nothing new), and
     * an answer when the view shows failures or an open circuit; what says nothing about the origin
     * ({@link AttemptVerdict#SILENT}) is not recorded. Never blocks: the writes run on the breaker's thread.
     *
     * @param retryAfter       whether the answer carried a usable {@code Retry-After}
     * @param attemptTimeoutMs how long the attempt was allowed (job, else topic, else default timeout)
     */
    public void answered(Admission admission, Throwable failure, int status, boolean retryAfter,
                         long attemptTimeoutMs) {
        if (!admission.tracked()) {
            return;
        }
        OriginView view = admission.view;
        String origin = admission.origin;
        BreakerPolicy policy = admission.policy;
        String cause = failure == null ? "HTTP " + status
                : failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
        switch (AttemptVerdict.of(failure, status, retryAfter, attemptTimeoutMs, minTimeoutMs)) {
            case FAILED -> {
                if (admission.probe || !view.circuit().isOpen()) {
                    writer.write("record a failed callback to " + origin, () -> {
                        OriginCircuit before = view.circuit();
                        if (before.isOpen() && !admission.probe) {
                            return; // opened by a failure written since this one came: it was in flight, nothing new
                        }
                        OriginCircuit after = circuits.recordFailure(origin, policy, maxOrigins);
                        if (after == null) {
                            untracked.failed(origin); // maxOrigins have a circuit: this one goes untracked
                            return;
                        }
                        view.update(after);
                        counted(CircuitLog.changed(before, after, policy, cause));
                    });
                }
            }
            case ANSWERED -> {
                OriginCircuit seen = view.circuit();
                boolean news = admission.probe || seen.isOpen() || seen.consecutiveFailures() > 0;
                if (news && view.successPending.compareAndSet(false, true)) {
                    boolean queued = writer.write("record an answer of " + origin, () -> {
                        try {
                            OriginCircuit before = view.circuit();
                            OriginCircuit after = circuits.recordSuccess(origin);
                            view.update(after);
                            int change = CircuitLog.changed(before, after, policy, "answered " + cause);
                            counted(change);
                            if (change < 0) {
                                heldCheck.releaseGone(origin, view); // closed: count only the jobs really held
                            }
                        } finally {
                            view.successPending.set(false);
                        }
                    });
                    if (!queued) {
                        view.successPending.set(false);
                    }
                }
            }
            case SILENT -> {
                // nothing is known about the origin: a refused address, a job's own short timeout, back-pressure
            }
        }
    }

    private void counted(int change) {
        if (change > 0) {
            metrics.opened.mark();
        } else if (change < 0) {
            metrics.closed.mark();
        }
    }

    private Admission hold(OriginView view, Job job, BreakerPolicy policy, long delayMs, String reason) {
        held.hold(view.origin, job.ref());
        metrics.jobsHeld.mark();
        return Admission.hold(view, policy, Failure.held(Math.max(0, delayMs), reason));
    }

    /**
     * A job on its last attempt probes only when the probe is an interval overdue: until then a job with attempts left
     * is likely to come along, and a failed probe costs it an attempt, not its life.
     */
    private static boolean mayProbe(Lease lease, OriginCircuit circuit, BreakerPolicy policy, long now) {
        if (lease.attempt() < lease.job().maxAttempts()) {
            return true;
        }
        long interval = Math.max(circuit.probeIntervalMs(), policy.probeIntervalMs());
        return now >= circuit.nextProbeAt() + interval;
    }

    private static long spread(OriginCircuit circuit, BreakerPolicy policy) {
        long interval = circuit.probeIntervalMs() > 0 ? circuit.probeIntervalMs() : policy.probeIntervalMs();
        long bound = Math.min(interval, MAX_SPREAD_MS);
        return bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound + 1);
    }

    static boolean lastEntryHeld(Job job) {
        List<Attempt> history = job.history();
        // a consumer's release is held too, but never counted as held for an origin
        Attempt last = history.isEmpty() ? null : history.get(history.size() - 1);
        return last != null && last.isHeld() && !LeaseReleases.isRelease(last);
    }
}
