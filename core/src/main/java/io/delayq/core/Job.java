package io.delayq.core;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * A job as the store holds it.
 *
 * @param topic       the topic
 * @param id          unique within the topic
 * @param payload     the producer's payload as compact JSON text, stored and delivered verbatim
 * @param runAt       when it is (or was) due, epoch ms by the store's clock
 * @param state       where it is in its life
 * @param attempts    attempts started so far (the current one included while {@link JobState#LEASED})
 * @param maxAttempts attempts allowed in all, resolved when it was scheduled
 * @param backoff     the job's own backoff, or {@code null} to use its topic's
 * @param callback    the job's own callback, or {@code null} for the topic default / pulling consumers
 * @param timeoutMs   the lease length for one attempt, or {@code null} for the topic default
 * @param broadcast   whether it is sent to every event subscriber rather than to one consumer
 * @param delivery    the lane that takes it when due
 * @param createdAt   when it was first accepted, epoch ms
 * @param finishedAt  when it reached a final state, epoch ms, or {@code null}
 * @param lastError   the last failure, or {@code null}
 * @param history     the last attempts, oldest first (capped by the store)
 * @param trace       the producer's W3C trace context, as it came with the job, or {@code null}
 * @param onDead      where a notice goes when the job becomes {@link JobState#DEAD}: the job's own, or {@code null}
 *                    for its topic's (in an archived dead letter: the one that applied when it died)
 * @param cause       why it is {@link JobState#DEAD}, or {@code null} (not dead, or dead before causes were stored)
 * @param expiresAt   the job's own expiry, epoch ms, or {@code null}: not delivered by then, it is dead with cause
 *                    {@link DeadCause#EXPIRED}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Job(
        String topic,
        String id,
        String payload,
        long runAt,
        JobState state,
        int attempts,
        int maxAttempts,
        Backoff backoff,
        Callback callback,
        Long timeoutMs,
        boolean broadcast,
        Delivery delivery,
        long createdAt,
        Long finishedAt,
        String lastError,
        List<Attempt> history,
        TraceContext trace,
        Callback onDead,
        DeadCause cause,
        Long expiresAt) {

    @JsonCreator
    public Job {
        history = history == null ? List.of() : List.copyOf(history);
    }

    /** A job without a dead cause or expiry (the form before either existed). */
    public Job(String topic, String id, String payload, long runAt, JobState state, int attempts, int maxAttempts,
               Backoff backoff, Callback callback, Long timeoutMs, boolean broadcast, Delivery delivery, long createdAt,
               Long finishedAt, String lastError, List<Attempt> history, TraceContext trace, Callback onDead) {
        this(topic, id, payload, runAt, state, attempts, maxAttempts, backoff, callback, timeoutMs, broadcast, delivery,
                createdAt, finishedAt, lastError, history, trace, onDead, null, null);
    }

    /** A job without a dead-notice target of its own (the form before dead notices existed). */
    public Job(String topic, String id, String payload, long runAt, JobState state, int attempts, int maxAttempts,
               Backoff backoff, Callback callback, Long timeoutMs, boolean broadcast, Delivery delivery, long createdAt,
               Long finishedAt, String lastError, List<Attempt> history, TraceContext trace) {
        this(topic, id, payload, runAt, state, attempts, maxAttempts, backoff, callback, timeoutMs, broadcast, delivery,
                createdAt, finishedAt, lastError, history, trace, null);
    }

    /** A job without a trace context or dead-notice target (the form before either existed). */
    public Job(String topic, String id, String payload, long runAt, JobState state, int attempts, int maxAttempts,
               Backoff backoff, Callback callback, Long timeoutMs, boolean broadcast, Delivery delivery, long createdAt,
               Long finishedAt, String lastError, List<Attempt> history) {
        this(topic, id, payload, runAt, state, attempts, maxAttempts, backoff, callback, timeoutMs, broadcast, delivery,
                createdAt, finishedAt, lastError, history, null, null);
    }

    /** The same job with another dead-notice target (the archiver resolves a topic's default into the dead letter). */
    public Job withOnDead(Callback target) {
        return new Job(topic, id, payload, runAt, state, attempts, maxAttempts, backoff, callback, timeoutMs, broadcast,
                delivery, createdAt, finishedAt, lastError, history, trace, target, cause, expiresAt);
    }

    /**
     * The cause of a dead job as an API shows it: the stored one, else {@link DeadCause#ATTEMPTS_EXHAUSTED} for a
     * dead job stored before causes existed (the only way to die then, but for the rare ones named since); {@code null}
     * when the job is not dead.
     */
    public DeadCause deadCause() {
        if (state != JobState.DEAD) {
            return null;
        }
        return cause != null ? cause : DeadCause.ATTEMPTS_EXHAUSTED;
    }

    /** Whether the attempt now leased (or the last one made) is the last the job is allowed. */
    public boolean isLastAttempt() {
        return attempts >= maxAttempts;
    }

    public JobRef ref() {
        return new JobRef(topic, id);
    }
}
