package io.delayq.core;

import java.util.Locale;

/**
 * Why a job became {@link JobState#DEAD}: each path to a dead letter has its own cause, stored with the job and its
 * dead letter, shown by the API and filterable ({@code cause=}).
 */
public enum DeadCause {
    /** The last attempt failed (a nack, an error answer, a timeout, a lease that expired before the last attempt). */
    ATTEMPTS_EXHAUSTED,
    /** Not delivered by its {@code expiresAt} (the job's own, or its topic's {@code expiresAfter} after its run time). */
    EXPIRED,
    /**
     * An answer that means "don't retry": a status among the topic's {@code noRetryStatuses}, a
     * {@code Delayq-No-Retry: true} header, or a pull consumer's {@code noRetry: true} nack.
     */
    NO_RETRY,
    /** A push job with no callback of its own, no topic default and not a broadcast: nowhere to deliver it. */
    NO_CALLBACK,
    /** The last attempt's lease expired again after its one free retry: the outcome is unknown. */
    LEASE_EXPIRED,
    /** The stored job cannot be read by this version of delayq; it is ended without an attempt. */
    UNREADABLE;

    /**
     * The cause named in text ({@code expired}, {@code NO_RETRY}), or {@code null} for null; an unknown name is
     * refused with the list of known ones.
     */
    public static DeadCause parse(String text) {
        if (text == null) {
            return null;
        }
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown cause '" + text + "'; one of "
                    + java.util.Arrays.toString(values()));
        }
    }

    /** A stored cause; {@code null} (a record written before causes existed, or an unknown name) stays null. */
    public static DeadCause ofStored(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return valueOf(text);
        } catch (IllegalArgumentException unknown) {
            return null;
        }
    }
}
