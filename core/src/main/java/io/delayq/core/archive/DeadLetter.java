package io.delayq.core.archive;

import io.delayq.core.Job;
import io.delayq.core.JobRef;

import java.util.List;
import java.util.Objects;

/**
 * One death of one job, as the archive keeps it. The same job id can die more than once (a producer re-used the id
 * after the store forgot the first one), and each death is its own dead letter with its own {@code key}.
 *
 * @param key         the archive's id of this dead letter ({@code <topic>/<id>/<createdAt>}), stable for its life
 * @param job         the job as it died: payload, callback, attempts and the history of its last attempts
 * @param deadAt      when it died, epoch ms by the store's clock
 * @param replayCount how many times an operator replayed it
 * @param replays     every replay, oldest first
 * @param notice      the dead notice to {@code job().onDead()}, or {@code null} when the job had no target
 */
public record DeadLetter(String key, Job job, long deadAt, int replayCount, List<Replay> replays, DeadNotice notice) {

    public DeadLetter {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(job, "job");
        replays = replays == null ? List.of() : List.copyOf(replays);
    }

    /** A dead letter without a dead notice (the form before dead notices existed). */
    public DeadLetter(String key, Job job, long deadAt, int replayCount, List<Replay> replays) {
        this(key, job, deadAt, replayCount, replays, null);
    }

    public JobRef ref() {
        return job.ref();
    }

    public boolean isReplayed() {
        return replayCount > 0;
    }

    /** The most recent replay, or {@code null}. */
    public Replay lastReplay() {
        return replays.isEmpty() ? null : replays.get(replays.size() - 1);
    }

    /** The archive key of a job's death: topic, id and the job's creation time, which differs between lives of an id. */
    public static String keyOf(Job job) {
        return job.topic() + "/" + job.id() + "/" + job.createdAt();
    }

    /**
     * One replay of a dead letter.
     *
     * @param number     1 for the first replay, and so on
     * @param at         when it was replayed, epoch ms
     * @param newJobId   the id of the job the replay scheduled (in the same topic)
     * @param requestKey the idempotency key the operator's request carried, or {@code null}
     */
    public record Replay(int number, long at, String newJobId, String requestKey) {
    }
}
