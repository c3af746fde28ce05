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

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * Replays dead letters: schedules a fresh job (attempts reset) with the dead job's payload and options, and records
 * the replay on the dead letter.
 *
 * <p>Idempotency. The n-th replay of a dead letter always schedules the job id {@link #replayId(String, int)
 * {@code <id>:r<n>}}, and the replay is recorded only after the store accepted the job, and only if the replay count
 * is still n-1. So:
 * <ul>
 *   <li>two requests at once both compute the same id; the store's idempotent enqueue keeps one job, and one of the
 *       two records the replay while the other finds it recorded and returns it;</li>
 *   <li>a crash between scheduling and recording leaves a job that the next replay request schedules again under
 *       the same id (a no-op) and then records: one job, never a lost replay;</li>
 *   <li>a request repeated after the first completed is recognised by its {@code requestKey}, or, when it has
 *       none, by arriving within the dedup window of the last replay (a double click).</li>
 * </ul>
 */
public final class DeadLetterReplayer {
    /** Key-less replays of the same dead letter closer together than this count as one (a double click). */
    public static final long DEFAULT_DEDUP_WINDOW_MS = 10_000;

    private static final int MAX_ID_LENGTH = 128;

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
     * @throws StoreException {@link StoreStatus#NOT_FOUND} when the job has no dead letter
     */
    public ReplayOutcome replay(JobRef ref, ReplayRequest request) {
        DeadLetter deadLetter = archive.deadLetter(ref)
                .orElseThrow(() -> new StoreException(StoreStatus.NOT_FOUND, "job " + ref + " has no dead letter"));
        return replay(deadLetter, request);
    }

    /** Replays one dead letter (see the class comment for what makes it idempotent). */
    public ReplayOutcome replay(DeadLetter deadLetter, ReplayRequest request) {
        if (request.delayMs() != null) {
            rules.checkDelay(request.delayMs());
        }
        Optional<DeadLetter.Replay> earlier = duplicateOf(deadLetter, request);
        if (earlier.isPresent()) {
            return duplicate(deadLetter, earlier.get());
        }
        int number = deadLetter.replayCount() + 1;
        String newId = replayId(deadLetter.job().id(), number);
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
        DeadLetter now = archive.deadLetter(deadLetter.key()).orElseThrow(() -> new StoreException(
                StoreStatus.NOT_FOUND, "dead letter " + deadLetter.key() + " was purged while it was being replayed"));
        DeadLetter.Replay theirs = now.replays().stream().filter(r -> r.number() == number).findFirst()
                .orElse(now.lastReplay());
        return duplicate(now, theirs);
    }

    /**
     * Replays every dead letter matching {@code filter} (its limit and cursor are ignored), newest first, at most
     * {@code max} of them. Dead letters replayed before are skipped unless {@code includeReplayed}; so repeating a
     * bulk replay, or calling again while {@link BulkReplayResult#more()} is true, never replays one twice.
     */
    public BulkReplayResult replayAll(DeadLetterQuery filter, Long delayMs, boolean includeReplayed, int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max is " + max + "; it must be at least 1");
        }
        DeadLetterQuery page = filter.withReplayed(includeReplayed ? filter.replayed() : Boolean.FALSE)
                .withLimit(Math.min(max, 200)).withCursor(null);
        var request = new ReplayRequest(delayMs, null, null);
        int replayed = 0;
        int duplicates = 0;
        while (true) {
            Page<DeadLetter> letters = archive.deadLetters(page);
            for (DeadLetter letter : letters.items()) {
                if (replayed + duplicates == max) {
                    return new BulkReplayResult(replayed, duplicates, true);
                }
                if (replay(letter, request).duplicate()) {
                    duplicates++;
                } else {
                    replayed++;
                }
            }
            if (!letters.hasNext()) {
                return new BulkReplayResult(replayed, duplicates, false);
            }
            page = page.withCursor(letters.nextCursor());
        }
    }

    /**
     * What a bulk replay did.
     *
     * @param replayed   dead letters replayed now
     * @param duplicates dead letters skipped because they were replayed moments ago (a repeated request)
     * @param more       true when it stopped at its maximum and more dead letters match
     */
    public record BulkReplayResult(int replayed, int duplicates, boolean more) {
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
        return new NewJob(dead.topic(), newId, dead.payload(), delayMs, null, Math.max(1, dead.maxAttempts()),
                dead.backoff(), callback, dead.timeoutMs(), dead.broadcast(), lane == null ? Delivery.PULL : lane);
    }

    /**
     * The id of the n-th replay of a job: {@code <id>:r<n>}. An id too long for that keeps its head and a digest of
     * the whole, so that it stays within the 128 characters of a job id and stays unique.
     */
    public static String replayId(String id, int number) {
        String suffix = ":r" + number;
        if (id.length() + suffix.length() <= MAX_ID_LENGTH) {
            return id + suffix;
        }
        String digest = sha256Hex(id).substring(0, 16);
        int head = MAX_ID_LENGTH - suffix.length() - digest.length() - 1;
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
