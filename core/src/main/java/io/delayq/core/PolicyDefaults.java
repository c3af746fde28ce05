package io.delayq.core;

import java.util.Objects;

/**
 * Resolves what applies to a job: its own setting, else its topic's, else the service default. Scheduling and
 * delivery both resolve through here so that the two never disagree.
 *
 * @param maxAttempts default attempts in all
 * @param backoff     default backoff
 * @param timeoutMs   default lease length of one attempt
 */
public record PolicyDefaults(int maxAttempts, Backoff backoff, long timeoutMs) {
    public static final long DEFAULT_TIMEOUT_MS = 30_000;

    public PolicyDefaults {
        Objects.requireNonNull(backoff, "backoff");
        if (maxAttempts < 1 || timeoutMs < 1) {
            throw new IllegalArgumentException("maxAttempts and timeoutMs must be positive");
        }
    }

    public static PolicyDefaults defaults() {
        return new PolicyDefaults(RetryPolicy.DEFAULT_MAX_ATTEMPTS, Backoff.defaultBackoff(), DEFAULT_TIMEOUT_MS);
    }

    /** Attempts for a new job: resolved once, at scheduling, and stored with the job. */
    public int maxAttempts(Integer jobOverride, TopicSettings topic) {
        if (jobOverride != null) {
            return jobOverride;
        }
        return topic.maxAttempts() != null ? topic.maxAttempts() : maxAttempts;
    }

    /** The retry policy of a stored job, at the time of its failure. */
    public RetryPolicy retryPolicy(Job job, TopicSettings topic) {
        Backoff b = job.backoff() != null ? job.backoff() : topic.backoff() != null ? topic.backoff() : backoff;
        return new RetryPolicy(job.maxAttempts(), b);
    }

    /** The lease length of one attempt. */
    public long timeoutMs(Long jobOverride, TopicSettings topic) {
        if (jobOverride != null) {
            return jobOverride;
        }
        return topic.timeoutMs() != null ? topic.timeoutMs() : timeoutMs;
    }

    /** The callback a push job goes to, or {@code null} when neither the job nor its topic names one. */
    public Callback callback(Job job, TopicSettings topic) {
        return job.callback() != null ? job.callback() : topic.callback();
    }

    /**
     * The lane of a new job: pushed when it is a broadcast or has a callback of its own or from its topic; otherwise
     * it waits for pulling consumers. Decided at scheduling: a topic callback set later applies to jobs scheduled
     * after it.
     */
    public Delivery lane(boolean broadcast, Callback jobCallback, TopicSettings topic) {
        return broadcast || jobCallback != null || topic.callback() != null ? Delivery.PUSH : Delivery.PULL;
    }
}
