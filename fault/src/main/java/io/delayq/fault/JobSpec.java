package io.delayq.fault;

import java.time.Instant;

/**
 * A job as a producer sends it: an absolute {@code runAt} (so the suite knows to the millisecond when it is due, on the
 * same host clock the service's Redis uses), a callback, and how it is expected to end.
 *
 * @param id          the job's id (the idempotency key, so a batch sent again after a lost answer is harmless)
 * @param runAtMs     when it is due, epoch ms
 * @param callbackUrl where it is delivered
 * @param options     more JSON fields, e.g. {@code "timeout":"2s","maxAttempts":1}, or empty
 * @param end         what acknowledging it obliges the service to do
 */
record JobSpec(String id, long runAtMs, String callbackUrl, String options, End end) {

    /** What the service owes an acknowledged job. */
    enum End {
        /** a callback answered 200 */
        DELIVERED,
        /** a dead letter in the archive (its callback always fails) */
        DEAD_LETTER
    }

    static JobSpec delivered(String id, long runAtMs, String callbackUrl, String options) {
        return new JobSpec(id, runAtMs, callbackUrl, options, End.DELIVERED);
    }

    String toJson() {
        return "{\"id\":\"" + id + "\",\"runAt\":\"" + Instant.ofEpochMilli(runAtMs) + "\",\"payload\":{\"job\":\""
                + id + "\"},\"callback\":{\"url\":\"" + callbackUrl + "\"}" + (options.isEmpty() ? "" : "," + options)
                + "}";
    }
}
