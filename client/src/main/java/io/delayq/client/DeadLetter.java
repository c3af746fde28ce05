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
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DeadLetter(String topic, String id, String key, Instant deadAt, int attempts, String lastError,
                         int replayCount, List<Replay> replays, JobInfo job) {

    public DeadLetter {
        replays = replays == null ? List.of() : List.copyOf(replays);
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
