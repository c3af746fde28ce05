package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;
import java.util.List;

/**
 * A job that died (attempts exhausted, or a failure not to retry), as the archive keeps it.
 *
 * @param topic       the job's topic
 * @param id          the job's id
 * @param key         the archive's id of this death (a job id can die more than once)
 * @param deadAt      when it died
 * @param attempts    attempts it made
 * @param lastError   why the last attempt failed
 * @param replayCount how many times it was replayed
 * @param replays     each replay, oldest first
 * @param job         the whole job: payload, callback, options and the history of its attempts
 * @param notice      where its dead notice to {@code job.onDead()} stands, or {@code null} when it had no target
 * @param cause       why it died ({@code ATTEMPTS_EXHAUSTED}, {@code EXPIRED}, {@code NO_RETRY}, …; a letter archived
 *                    before causes existed says {@code ATTEMPTS_EXHAUSTED})
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DeadLetter(String topic, String id, String key, Instant deadAt, int attempts, String lastError,
                         int replayCount, List<Replay> replays, JobInfo job, Notice notice,
                         String cause) {

    public DeadLetter {
        replays = replays == null ? List.of() : List.copyOf(replays);
    }

    /**
     * The dead notice of this death.
     *
     * @param state         PENDING (to be sent, or waiting for its next attempt), DELIVERED or FAILED (every attempt
     *                      failed)
     * @param attempts      attempts made so far
     * @param nextAttemptAt while PENDING: when the next attempt may start, else {@code null}
     * @param deliveredAt   when the target answered 2xx, or {@code null}
     * @param lastError     why the last attempt failed, or {@code null}
     * @param lastStatus    the HTTP status of the last failed attempt, when it got an answer
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Notice(String state, int attempts, Instant nextAttemptAt, Instant deliveredAt, String lastError,
                         Integer lastStatus) {
        public boolean isDelivered() {
            return "DELIVERED".equals(state);
        }
    }

    /**
     * One replay of a dead letter.
     *
     * @param number     1 for the first
     * @param at         when it was replayed
     * @param newJobId   the id of the job it scheduled, in the same topic
     * @param requestKey the idempotency key of the request, if it had one
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Replay(int number, Instant at, String newJobId, String requestKey) {
    }
}
