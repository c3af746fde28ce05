package io.delayq.core.archive;

import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Replays dead letters: schedules a fresh job (attempts reset) with the dead job's payload and options, and records
 * the replay on the dead letter.
 *
 * <p>Replay ids. The n-th replay of a dead letter schedules the job id {@link #replayId(DeadLetter, int)
 * {@code <id>:<createdAt>:r<n>}}: the dead job's id, the creation time that tells its lives apart (the same
 * {@code createdAt} as in the letter's key {@code <topic>/<id>/<createdAt>}), and the replay's number. An id can die
 * more than once (the store forgets a finished job and the producer uses the id again), and each death is a dead
 * letter of its own; with the life in the id, the first replay of the second life can never land on the first
 * life's replay, which the store may still remember (finished) and would answer as "already there".
 *
 * <p>Idempotency. The id depends only on the letter and n, and the replay is recorded only after the store accepted
 * the job, and only if the replay count is still n-1. So:
 * <ul>
 *   <li>two requests at once both compute the same id; the store's idempotent enqueue keeps one job, and one of the
 *       two records the replay while the other finds it recorded and returns it;</li>
 *   <li>a crash between scheduling and recording leaves a job that the next replay request schedules again under
 *       the same id (a no-op) and then records: one job, never a lost replay;</li>
 *   <li>a request repeated after the first completed is recognised by its {@code requestKey}, or, when it has
 *       none, by arriving within the dedup window of the last replay (a double click).</li>
 * </ul>
 *
 * <p>Purged letters. A replay asks the archive for the letter first and refuses one that has been purged (the
 * archive keeps a tombstone, so a purged letter stays purged). When the purge lands while the replay is in flight,
 * after the read and before the replay is recorded, the purge wins: the replay's job is cancelled, unless it has
 * already finished.
 */
public final class DeadLetterReplayer {
    /** Key-less replays of the same dead letter closer together than this count as one (a double click). */
    public static final long DEFAULT_DEDUP_WINDOW_MS = 10_000;

    /** Dead letters read per page by a bulk replay. */
    private static final int BULK_PAGE = 200;
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterReplayer.class);

    private final JobStore store;
    private final JobArchive archive;
    private final JobRules rules;
    private final long dedupWindowMs;

    public DeadLetterReplayer(JobStore store, JobArchive archive, JobRules rules, long dedupWindowMs) {
        this.store = Objects.requireNonNull(store, "store");
        this.archive = Objects.requireNonNull(archive, "archive");
        this.rules = Objects.requireNonNull(rules, "rules");
        this.dedupWindowMs = dedupWindowMs;
    }

    public DeadLetterReplayer(JobStore store, JobArchive archive) {
        this(store, archive, JobRules.defaults(), DEFAULT_DEDUP_WINDOW_MS);
    }

    /**
     * Replays the newest dead letter of a job id.
     *
     * @throws StoreException {@link StoreStatus#NOT_FOUND} when the job has no dead letter (or it was purged)
     */
    public ReplayOutcome replay(JobRef ref, ReplayRequest request) {
        checkDelay(request);
        DeadLetter deadLetter = archive.deadLetter(ref)
                .orElseThrow(() -> new StoreException(StoreStatus.NOT_FOUND, "job " + ref + " has no dead letter"));
        return replayLetter(deadLetter, request);
    }

    /**
     * Replays one dead letter as the caller last saw it, e.g. in a listing (see the class comment for what makes it
     * idempotent): when someone else replayed it since, this answers their replay as a duplicate rather than
     * replaying it once more.
     *
     * @throws StoreException {@link StoreStatus#NOT_FOUND} when it has been purged since
     */
    public ReplayOutcome replay(DeadLetter deadLetter, ReplayRequest request) {
        checkDelay(request);
        if (archive.deadLetter(deadLetter.key()).isEmpty()) {
            throw purged(deadLetter);
        }
        return replayLetter(deadLetter, request);
    }

    private void checkDelay(ReplayRequest request) {
        if (request.delayMs() != null) {
            rules.checkDelay(request.delayMs());
        }
    }

    private ReplayOutcome replayLetter(DeadLetter deadLetter, ReplayRequest request) {
        Optional<DeadLetter.Replay> earlier = duplicateOf(deadLetter, request);
        if (earlier.isPresent()) {
            return duplicate(deadLetter, earlier.get());
        }
        int number = deadLetter.replayCount() + 1;
        String newId = replayId(deadLetter, number);
        EnqueueResult enqueued = store.enqueue(newJob(deadLetter.job(), newId, request));
        Job job = enqueued.job();
        if (enqueued.status() == StoreStatus.CONFLICT && !deadLetter.job().payload().equals(job.payload())) {
            throw new StoreException(StoreStatus.CONFLICT, "cannot replay " + deadLetter.ref() + ": its replay id "
                    + newId + " is already used by another job of the topic; purge or rename that job first");
        }
        // Otherwise a CONFLICT means an earlier request for this same replay got as far as scheduling it (with other
        // options) and died: that job is the replay. Record it rather than schedule a second one.
        var replay = new DeadLetter.Replay(number, store.now(), newId, request.requestKey());
        if (archive.recordReplay(deadLetter.key(), deadLetter.replayCount(), replay)) {
            DeadLetter recorded = archive.deadLetter(deadLetter.key()).orElse(deadLetter);
            return new ReplayOutcome(recorded, replay, false, job);
        }
        Optional<DeadLetter> now = archive.deadLetter(deadLetter.key());
        if (now.isEmpty()) {
            return purgedWhileReplaying(deadLetter, replay, job);
        }
        DeadLetter.Replay theirs = now.get().replays().stream().filter(r -> r.number() == number).findFirst()
                .orElse(now.get().lastReplay());
        return duplicate(now.get(), theirs);
    }

    /**
     * The letter was purged after this replay read it and before the replay could be recorded: the purge wins.
     * The job is withdrawn if it has not finished yet; one that has finished (delivered in these few milliseconds)
     * cannot be, and is answered as the replay it was.
     */
    private ReplayOutcome purgedWhileReplaying(DeadLetter deadLetter, DeadLetter.Replay replay, Job job) {
        try {
            store.cancel(new JobRef(deadLetter.job().topic(), replay.newJobId()));
        } catch (StoreException e) {
            if (e.status() == StoreStatus.NOT_IN_STATE) {
                return new ReplayOutcome(deadLetter, replay, false, store.find(job.ref()).orElse(job));
            }
            if (e.status() != StoreStatus.NOT_FOUND) {
                throw e;
            }
        }
        throw new StoreException(StoreStatus.NOT_FOUND, "dead letter " + deadLetter.key() + " was purged while it"
                + " was being replayed; its replay " + replay.newJobId() + " was withdrawn");
    }

    private static StoreException purged(DeadLetter deadLetter) {
        return new StoreException(StoreStatus.NOT_FOUND, "dead letter " + deadLetter.key()
                + " has been purged; a purged dead letter cannot be replayed");
    }

    /**
     * Replays every dead letter matching {@code filter}, newest first, at most {@code max} of them, starting after
     * {@code filter.cursor()} when it has one (its limit is ignored). Dead letters replayed before are skipped unless
     * {@code includeReplayed}; so repeating a bulk replay never replays one twice.
     *
     * <p>A letter that cannot be replayed (its replay id taken by another job, purged meanwhile, refused by the
     * rules) is reported as {@link BulkReplayResult.Outcome#FAILED} with the reason, and the run goes on. It counts
     * towards {@code max}; continuing from {@link BulkReplayResult#nextCursor()} goes past it, while a request without
     * a cursor starts again from the newest and so tries the failed letters again. When the store or the archive
     * cannot be reached the run stops there: with nothing done yet the {@link StoreException} is thrown (nothing was
     * changed); otherwise the result says so in {@link BulkReplayResult#stopped()}, and its cursor continues at the
     * letter that could not be replayed.
     *
     * @throws IllegalArgumentException for a bad {@code max}, delay or cursor (before anything is replayed)
     */
    public BulkReplayResult replayAll(DeadLetterQuery filter, Long delayMs, boolean includeReplayed, int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max is " + max + "; it must be at least 1");
        }
        var request = new ReplayRequest(delayMs, null, null);
        checkDelay(request);
        DeadLetterQuery query = filter.withReplayed(includeReplayed ? filter.replayed() : Boolean.FALSE);
        List<BulkReplayResult.LetterOutcome> letters = new ArrayList<>();
        String cursor = filter.cursor();
        while (letters.size() < max) {
            Page<DeadLetter> page;
            try {
                // No more than is left to take, so that the last page's hasNext says whether more match beyond it.
                int limit = Math.min(max - letters.size(), BULK_PAGE);
                page = archive.deadLetters(query.withLimit(limit).withCursor(cursor));
            } catch (StoreException e) {
                return stop(letters, cursor, e);
            }
            for (DeadLetter letter : page.items()) {
                try {
                    letters.add(BulkReplayResult.LetterOutcome.of(letter, replay(letter, request)));
                } catch (StoreException e) {
                    if (e.status() == StoreStatus.UNAVAILABLE) {
                        return stop(letters, cursor, e);
                    }
                    letters.add(BulkReplayResult.LetterOutcome.failed(letter, e));
                } catch (IllegalArgumentException e) {
                    letters.add(BulkReplayResult.LetterOutcome.failed(letter, e));
                } catch (RuntimeException e) {
                    LOG.warn("Bulk replay could not replay dead letter {}; going on with the others", letter.key(), e);
                    letters.add(BulkReplayResult.LetterOutcome.failed(letter, e));
                }
                cursor = DeadLetterCursor.after(letter);
            }
            if (!page.hasNext()) {
                return new BulkReplayResult(letters, false, null, null);
            }
        }
        return new BulkReplayResult(letters, true, cursor, null);
    }

    /** The store or the archive cannot be reached: every further letter would fail the same way. */
    private static BulkReplayResult stop(List<BulkReplayResult.LetterOutcome> letters, String cursor,
                                         StoreException e) {
        if (e.status() != StoreStatus.UNAVAILABLE || letters.isEmpty()) {
            throw e;
        }
        return new BulkReplayResult(letters, true, cursor, e.getMessage());
    }

    private Optional<DeadLetter.Replay> duplicateOf(DeadLetter deadLetter, ReplayRequest request) {
        if (request.requestKey() != null) {
            return deadLetter.replays().stream().filter(r -> request.requestKey().equals(r.requestKey())).findFirst();
        }
        DeadLetter.Replay last = deadLetter.lastReplay();
        if (last != null && store.now() - last.at() < dedupWindowMs) {
            return Optional.of(last);
        }
        return Optional.empty();
    }

    private ReplayOutcome duplicate(DeadLetter deadLetter, DeadLetter.Replay replay) {
        Job job = store.find(new JobRef(deadLetter.job().topic(), replay.newJobId())).orElse(null);
        return new ReplayOutcome(deadLetter, replay, true, job);
    }

    private static NewJob newJob(Job dead, String newId, ReplayRequest request) {
        Callback callback = request.callback() != null ? request.callback() : dead.callback();
        Delivery lane = request.callback() != null ? Delivery.PUSH : dead.delivery();
        long delayMs = request.delayMs() != null ? request.delayMs() : 0L;
        // The replay keeps the original's trace context: the trace that scheduled the job sees it delivered at last.
        return new NewJob(dead.topic(), newId, dead.payload(), delayMs, null, Math.max(1, dead.maxAttempts()),
                dead.backoff(), callback, dead.timeoutMs(), dead.broadcast(), lane == null ? Delivery.PULL : lane,
                dead.trace());
    }

    /** The id of the n-th replay of a dead letter: {@code <id>:<createdAt>:r<n>} (see the class comment). */
    public static String replayId(DeadLetter deadLetter, int number) {
        return replayId(deadLetter.job().id(), deadLetter.job().createdAt(), number);
    }

    /**
     * The id of the n-th replay of the life of job {@code id} created at {@code createdAt}:
     * {@code <id>:<createdAt>:r<n>}. An id too long for that keeps its head and a digest of the whole id, so that it
     * stays within the 128 characters of a job id and stays unique.
     */
    public static String replayId(String id, long createdAt, int number) {
        String suffix = ":" + createdAt + ":r" + number;
        if (id.length() + suffix.length() <= JobRules.MAX_NAME_CHARS) {
            return id + suffix;
        }
        String digest = sha256Hex(id).substring(0, 16);
        int head = JobRules.MAX_NAME_CHARS - suffix.length() - digest.length() - 1;
        return id.substring(0, head) + "-" + digest + suffix;
    }

    private static String sha256Hex(String text) {
        try {
            return HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }
}
