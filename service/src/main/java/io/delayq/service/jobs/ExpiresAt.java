package io.delayq.service.jobs;

import io.delayq.service.http.Times;

/**
 * A job's own {@code expiresAt} (issue 29): an RFC 3339 time not before the job's run time, nor already past (a job
 * that could never be delivered is refused rather than accepted only to die).
 */
public final class ExpiresAt {
    private ExpiresAt() {
    }

    /**
     * Refuses to move a job past its own {@code expiresAt}: it would never be delivered (the reserve would end it as
     * EXPIRED), as an {@code expiresAt} before the run time is refused at enqueue. A job's {@code expiresAt} never
     * changes once stored, so checking it against a copy read earlier (a find, a listing page) leaves no race with the
     * move itself. For one job's reschedule and for a bulk reschedule of jobs alike.
     *
     * @param expiresAt the job's {@code expiresAt} in epoch ms, or null (none: every run time is allowed)
     */
    public static void refuseMoveBeyond(Long expiresAt, long runAtMs) {
        if (expiresAt != null && runAtMs > expiresAt) {
            throw new IllegalArgumentException("the new run time " + java.time.Instant.ofEpochMilli(runAtMs)
                    + " is after the job's expiresAt " + java.time.Instant.ofEpochMilli(expiresAt) + ": it would never"
                    + " be delivered; move it to before its expiry, or cancel it");
        }
    }

    /**
     * @param text    the field as sent, or null
     * @param delayMs the job's delay (its run time is then about now + delay), or null
     * @param runAtMs the job's run time, or null
     * @param nowMs   this host's clock; the store's decides the run time of a delay, so a delayed job's check allows
     *                for nothing but the delay itself
     * @return epoch ms, or null when none was sent
     */
    static Long check(String text, Long delayMs, Long runAtMs, long nowMs) {
        if (text == null) {
            return null;
        }
        long expiresAt = Times.parseRfc3339("expiresAt", text);
        long runAt = runAtMs != null ? runAtMs : nowMs + (delayMs == null ? 0 : delayMs);
        if (expiresAt < runAt) {
            throw new IllegalArgumentException("expiresAt (" + text + ") is before the job's run time ("
                    + java.time.Instant.ofEpochMilli(runAt) + "); a job must be able to run before it expires");
        }
        if (expiresAt <= nowMs) {
            throw new IllegalArgumentException("expiresAt (" + text + ") has passed; the job could never be delivered");
        }
        return expiresAt;
    }
}
