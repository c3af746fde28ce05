package io.delayq.client;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a {@link JobHandler} to say "not now, put it back": the job runs again after {@link #delay()}, whatever
 * its retry policy's backoff says. The put-back counts as an attempt, so on the job's
 * {@linkplain LeasedJob#isLastAttempt() last attempt} it ends the job dead (and calls the worker's
 * {@link DeadHandler}, if any).
 *
 * <pre>{@code if (!mailer.isUp()) throw Retry.in(Duration.ofSeconds(30));}</pre>
 */
public final class Retry extends RuntimeException {
    private final Duration delay;

    private Retry(Duration delay, String reason) {
        super(reason, null, false, false);
        this.delay = delay;
    }

    public static Retry in(Duration delay) {
        return in(delay, "put back by the handler for " + delay);
    }

    public static Retry in(Duration delay, String reason) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("a retry delay must not be negative: " + delay);
        }
        return new Retry(delay, reason);
    }

    public Duration delay() {
        return delay;
    }
}
