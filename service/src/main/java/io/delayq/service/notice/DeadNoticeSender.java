package io.delayq.service.notice;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import io.delayq.core.Callback;
import io.delayq.core.JobStore;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.JobArchive;
import io.delayq.service.delivery.CallbackClient;
import io.delayq.service.delivery.CallbackGuard;
import io.delayq.service.delivery.Signatures;
import io.delayq.service.delivery.TopicSigners;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Sends the dead notices the archive holds: when a job with an {@code onDead} target (its own or its topic's) dies,
 * the archive writes its dead letter with a pending notice, and this sender POSTs it to the target, signed like a
 * callback (with its topic's tenant's secrets), with a bounded retry of its own, and records on the dead letter how it went.
 *
 * <p>Every {@code pollInterval} (and at once again while full batches come back) one pass takes up to
 * {@code batchSize} due notices ({@link JobArchive#dueNotices}, by the store's clock), <b>claims</b> each with a
 * compare-and-set on its attempt count ({@link JobArchive#recordNotice}: only the instance whose claim is recorded
 * sends it, so several instances never send one notice twice at once), POSTs the claimed ones concurrently through
 * the callbacks' guarded HTTP client ({@link CallbackClient}: the same {@link CallbackGuard} address rules, no
 * redirects, a timeout), and records each outcome: {@link DeadNotice#delivered} on 2xx, else
 * {@link DeadNotice#failed} with the next attempt due after a doubling wait, or FAILED for good after
 * {@link NoticePolicy#maxAttempts()} attempts. It never loops: every attempt uses one of those attempts.
 *
 * <p>A notice is sent only for a letter that is still there and not replayed: right after claiming it, the sender reads
 * the letter again ({@link JobArchive#deadLetter(String)}, by key) and does not send the notice of a letter purged or
 * replayed meanwhile ({@value #WITHDRAWN_METER}); a replayed letter's notice is recorded FAILED with the reason.
 *
 * <p>At least once: a claim lapses {@link NoticePolicy#claimLapsesAt} after it was made, so a notice whose sender
 * died mid-send (or could not record its outcome) is sent again by any instance, as the next attempt. A claim that
 * lapsed on the last attempt is recorded FAILED with "outcome unknown" rather than sent past the limit. On a clean stop
 * the pass in progress finishes and records its outcomes first.
 *
 * <p>An archive that keeps no dead letters (its {@code dueNotices} is unsupported) stops the sender at its first pass,
 * with one log line.
 *
 * <p>Metrics: meters {@value #SENT_METER} (delivered), {@value #FAILED_METER} (failed attempts) and
 * {@value #GIVEN_UP_METER} (notices FAILED for good), gauge {@value #DUE_GAUGE} (notices due at the last pass, at most
 * {@code batchSize}; null while the archive cannot be read). The {@value #HEALTH_CHECK} health check is always healthy (delayq itself is fine when a
 * receiver is not) and says so in its message when notices keep failing or the archive cannot be read.
 */
public final class DeadNoticeSender implements Managed {
    public static final String SENT_METER = "delayq.notices.sent";
    public static final String FAILED_METER = "delayq.notices.failed";
    public static final String GIVEN_UP_METER = "delayq.notices.given-up";
    public static final String WITHDRAWN_METER = "delayq.notices.withdrawn";
    public static final String DUE_GAUGE = "delayq.notices.due";
    public static final String HEALTH_CHECK = "dead-notices";
    /** Failed attempts in a row from which the health check says that notices keep failing. */
    static final int KEEP_FAILING = 3;
    /** How long past an attempt's timeout its answer is waited for (the HTTP client's own timeout ends it first). */
    private static final long ANSWER_GRACE_MS = 2_000;
    private static final long CONNECT_TIMEOUT_MS = 5_000;

    private static final Logger LOG = LoggerFactory.getLogger(DeadNoticeSender.class);

    private final JobStore store;
    private final JobArchive archive;
    private final NoticePolicy policy;
    private final int batchSize;
    private final long pollIntervalMs;
    private final CallbackGuard guard;
    private final DeadNoticeRequest request;
    private final Meter sent;
    private final Meter failed;
    private final Meter givenUp;
    private final Meter withdrawn;
    private final Object wakeUp = new Object();

    private volatile int lastDue;
    private volatile int failuresInARow;
    private volatile String lastFailure;
    private volatile String archiveError;
    private volatile boolean unsupported;
    private volatile boolean running;
    private Thread thread;
    private CallbackClient http;

    /**
     * @param batchSize      notices claimed and sent per pass, concurrently
     * @param pollIntervalMs pause between passes when the last one was not full
     */
    public DeadNoticeSender(JobStore store, JobArchive archive, NoticePolicy policy, int batchSize, long pollIntervalMs,
                            CallbackGuard guard, Signatures signatures, MetricRegistry metrics) {
        this(store, archive, policy, batchSize, pollIntervalMs, guard, TopicSigners.serviceOnly(signatures), metrics);
    }

    /** As above, signing each notice with the secrets of its topic's owner ({@link TopicSigners}). */
    public DeadNoticeSender(JobStore store, JobArchive archive, NoticePolicy policy, int batchSize, long pollIntervalMs,
                            CallbackGuard guard, TopicSigners signers, MetricRegistry metrics) {
        this.store = Objects.requireNonNull(store, "store");
        this.archive = Objects.requireNonNull(archive, "archive");
        this.policy = Objects.requireNonNull(policy, "policy");
        if (batchSize < 1) {
            throw new IllegalArgumentException("deadNotices.batchSize must be at least 1");
        }
        this.batchSize = batchSize;
        this.pollIntervalMs = Math.max(1, pollIntervalMs);
        this.guard = Objects.requireNonNull(guard, "guard");
        this.request = new DeadNoticeRequest(signers);
        this.sent = metrics.meter(SENT_METER);
        this.failed = metrics.meter(FAILED_METER);
        this.givenUp = metrics.meter(GIVEN_UP_METER);
        this.withdrawn = metrics.meter(WITHDRAWN_METER);
        metrics.remove(DUE_GAUGE);
        // Unknown (null: no Prometheus sample) while the archive cannot be read, rather than the last count seen.
        metrics.register(DUE_GAUGE, (Gauge<Integer>) () -> archiveError == null ? lastDue : null);
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        // As many connections per target as notices in a batch: a batch to one target is sent at once, so the
        // request timeout (which counts time queued for a connection) is the attempt's own.
        http = new CallbackClient(batchSize, Math.min(CONNECT_TIMEOUT_MS, policy.timeoutMs()), guard);
        http.start();
        running = true;
        thread = new Thread(this::run, "delayq-dead-notices");
        thread.setDaemon(true);
        thread.start();
    }

    /** Lets the pass in progress finish (its sends end within their timeout) and record its outcomes, then stops. */
    @Override
    public void stop() throws InterruptedException {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
            thread = null;
        }
        if (t != null) {
            synchronized (wakeUp) {
                wakeUp.notifyAll();
            }
            t.join(policy.timeoutMs() + ANSWER_GRACE_MS + NoticePolicy.CLAIM_MARGIN_MS);
        }
        if (http != null) {
            http.stop();
        }
    }

    /** The {@value #HEALTH_CHECK} health check: always healthy; its message says what goes wrong. */
    public HealthCheck healthCheck() {
        return new HealthCheck() {
            @Override
            protected Result check() {
                return Result.healthy(status());
            }
        };
    }

    /** What the health check says. */
    String status() {
        if (unsupported) {
            return "the archive keeps no dead letters, so no dead notices are sent";
        }
        StringBuilder message = new StringBuilder()
                .append(sent.getCount()).append(" notices delivered, ")
                .append(failed.getCount()).append(" attempts failed, ")
                .append(givenUp.getCount()).append(" notices FAILED for good since start; ")
                .append(lastDue).append(" due at the last pass");
        String archiveProblem = archiveError;
        if (archiveProblem != null) {
            message.append("; cannot read or record notices in the archive (retrying): ").append(archiveProblem);
        }
        int inARow = failuresInARow;
        if (inARow >= KEEP_FAILING) {
            message.append("; notices keep failing: the last ").append(inARow).append(" attempts failed, the last: ")
                    .append(lastFailure).append(" (each notice is tried ").append(policy.maxAttempts())
                    .append(" times, then recorded FAILED on its dead letter)");
        }
        return message.toString();
    }

    /**
     * One pass: claims the due notices, sends them concurrently and records each outcome.
     *
     * @return how many notices were due (at most {@code batchSize})
     * @throws UnsupportedOperationException when the archive keeps no dead letters
     * @throws RuntimeException when the store or the archive cannot be reached; the claimed notices are sent and
     *                          recorded first
     */
    int sendDue() {
        long storeNow = store.now();
        long base = System.nanoTime();
        LongSupplier now = () -> storeNow + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - base);
        List<DeadLetter> due = archive.dueNotices(storeNow, batchSize);
        lastDue = due.size();
        List<Sending> sending = new ArrayList<>(due.size());
        try {
            for (DeadLetter letter : due) {
                DeadNotice notice = letter.notice();
                if (notice == null || !notice.isPending()) {
                    continue;
                }
                if (notice.attempts() >= policy.maxAttempts()) {
                    giveUpLapsed(letter, notice);
                    continue;
                }
                DeadNotice claimed = notice.claimed(policy.claimLapsesAt(now.getAsLong()));
                if (!archive.recordNotice(letter.key(), notice.attempts(), claimed)) {
                    LOG.debug("Dead notice of {} claimed by another instance (or its letter purged)", letter.key());
                    continue;
                }
                if (withdrawn(letter, claimed)) {
                    continue;
                }
                sending.add(new Sending(letter, claimed, send(letter, claimed)));
            }
        } finally {
            for (Sending s : sending) {
                record(s, now);
            }
        }
        return due.size();
    }

    /**
     * Whether a notice just claimed must not be sent after all, because its letter was purged or replayed since the
     * due notices were read (issue 26, finding 19): the letter is read again by its key, after the claim, so that a
     * purge or replay an operator finished before this check is always seen. A replayed letter's notice is settled
     * FAILED, saying why, so that it is not due again; a purged letter has nothing left to record on.
     */
    private boolean withdrawn(DeadLetter due, DeadNotice claimed) {
        Optional<DeadLetter> now = archive.deadLetter(due.key());
        if (now.isEmpty()) {
            withdrawn.mark();
            LOG.info("Dead notice of {} not sent: its dead letter was purged", due.key());
            return true;
        }
        if (now.get().isReplayed()) {
            withdrawn.mark();
            DeadLetter.Replay replay = now.get().lastReplay();
            String why = "not sent: the dead letter was replayed" + (replay == null ? ""
                    : " at " + Instant.ofEpochMilli(replay.at()) + " as job " + replay.newJobId());
            archive.recordNotice(due.key(), claimed.attempts(), claimed.failed(why, null, -1));
            LOG.info("Dead notice of {} {}", due.key(), why);
            return true;
        }
        return false;
    }

    /** A claimed notice and its answer to come. */
    private record Sending(DeadLetter letter, DeadNotice claimed, CompletableFuture<CallbackClient.Answer> answer) {
    }

    /** POSTs a claimed notice; a refused or malformed target is a failed answer. Never blocks. */
    private CompletableFuture<CallbackClient.Answer> send(DeadLetter letter, DeadNotice claimed) {
        CompletableFuture<CallbackClient.Answer> answer = new CompletableFuture<>();
        Callback target = letter.job().onDead();
        try {
            if (target == null) {
                throw new IllegalArgumentException("the dead letter names no onDead target");
            }
            URI uri = guard.check(target.url()); // the rules may have changed since the job was accepted
            CallbackGuard.checkHeaders(target.headers());
            byte[] body = request.body(letter);
            http.post(uri, request.headers(letter, target, claimed.attempts(), body), body, policy.timeoutMs(),
                    answer::complete);
        } catch (RuntimeException refusedOrStopping) {
            answer.complete(new CallbackClient.Answer(0, "", null, refusedOrStopping));
        }
        return answer;
    }

    /** Waits for a notice's answer and records it on its dead letter; a failure to record is logged, not thrown. */
    private void record(Sending s, LongSupplier now) {
        CallbackClient.Answer answer = await(s.answer());
        DeadLetter letter = s.letter();
        DeadNotice claimed = s.claimed();
        String target = letter.job().onDead() == null ? "(none)" : letter.job().onDead().url();
        try {
            boolean recorded;
            if (answer.is2xx()) {
                recorded = archive.recordNotice(letter.key(), claimed.attempts(), claimed.delivered(now.getAsLong()));
                sent.mark();
                failuresInARow = 0;
                LOG.info("Dead notice of {} delivered to {} (attempt {})", letter.key(), target, claimed.attempts());
            } else {
                String error = NoticeFailures.describe(answer, policy.timeoutMs(), errorBodies(letter));
                Integer status = answer.failure() == null ? answer.status() : null;
                long retryAt = policy.retryAt(claimed.attempts(), now.getAsLong());
                recorded = archive.recordNotice(letter.key(), claimed.attempts(), claimed.failed(error, status, retryAt));
                failed.mark();
                failuresInARow++;
                lastFailure = letter.key() + " to " + target + ": " + error;
                if (retryAt < 0) {
                    givenUp.mark();
                    LOG.warn("Dead notice of {} to {} FAILED after {} attempts, the last: {}; recorded on the dead"
                            + " letter", letter.key(), target, claimed.attempts(), error);
                } else {
                    LOG.info("Dead notice of {} to {}: attempt {} of {} failed ({}); next attempt at {}", letter.key(),
                            target, claimed.attempts(), policy.maxAttempts(), error, Instant.ofEpochMilli(retryAt));
                }
            }
            if (!recorded) {
                LOG.info("The outcome of the dead notice of {} was not recorded: its dead letter was purged, or its"
                        + " claim lapsed and another instance took the notice over", letter.key());
            }
        } catch (RuntimeException e) {
            LOG.warn("Could not record the outcome of the dead notice of {} in the archive; its claim lapses at {}"
                    + " and it is sent again then: {}", letter.key(), Instant.ofEpochMilli(claimed.nextAttemptAt()),
                    e.toString());
        }
    }

    /** Whether the dead job's topic lets errors quote the receiver's answer; not when its settings cannot be read. */
    private boolean errorBodies(DeadLetter letter) {
        try {
            return store.settings(letter.job().topic()).showsErrorBodies();
        } catch (RuntimeException unreadable) {
            return false;
        }
    }

    private CallbackClient.Answer await(CompletableFuture<CallbackClient.Answer> answer) {
        try {
            return answer.get(policy.timeoutMs() + ANSWER_GRACE_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return new CallbackClient.Answer(0, "", null, e);
        } catch (ExecutionException e) {
            return new CallbackClient.Answer(0, "", null, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new CallbackClient.Answer(0, "", null, e);
        }
    }

    /**
     * A notice whose last allowed attempt was claimed but never recorded (its sender stopped): whether it arrived is
     * unknown, and it is not sent past the limit.
     */
    private void giveUpLapsed(DeadLetter letter, DeadNotice notice) {
        String error = "the outcome of the last attempt is unknown: the instance sending it stopped before recording"
                + " it (the target may have received it)";
        if (archive.recordNotice(letter.key(), notice.attempts(), notice.failed(error, notice.lastStatus(), -1))) {
            givenUp.mark();
            LOG.warn("Dead notice of {} FAILED: {}", letter.key(), error);
        }
    }

    private void run() {
        boolean failing = false;
        while (running) {
            int due = 0;
            try {
                due = sendDue();
                if (failing) {
                    LOG.info("Dead notices: the archive and the store can be reached again");
                    failing = false;
                    archiveError = null;
                }
            } catch (UnsupportedOperationException e) {
                unsupported = true;
                LOG.info("The archive keeps no dead letters, so no dead notices are sent ({})", e.getMessage());
                return;
            } catch (RuntimeException e) {
                archiveError = e.toString();
                if (!failing) {
                    failing = true;
                    LOG.warn("Dead notices cannot be read or claimed (the archive or the store is unreachable); they"
                            + " wait in the archive and are retried every {} ms: {}", pollIntervalMs, e.toString(), e);
                }
            }
            if (due < batchSize || failing) {
                pause(pollIntervalMs);
            }
        }
    }

    private void pause(long millis) {
        synchronized (wakeUp) {
            if (!running) {
                return;
            }
            try {
                wakeUp.wait(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
        }
    }
}
