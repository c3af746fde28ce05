package io.delayq.core.testing;

import io.delayq.core.Attempt;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.OutboxEntry;
import io.dropwizard.util.Duration;

import java.util.List;
import java.util.Map;

/**
 * Finished jobs as a store hands them to any {@link io.delayq.core.archive.JobArchive} through its outbox: dead ones
 * with their attempt history, succeeded ones, and the outbox entries that carry them. Built directly rather than
 * driven through a store, so that an archive's tests choose every time (a death in 1970, two lives of one id, ties
 * on {@code deadAt}) and need no store.
 */
public final class ArchiveFixtures {
    /**
     * A payload an archive must keep byte for byte: keys out of order, a number whose spelling ({@code 1.50}) and one
     * whose size (beyond a long) a re-encoding would change, a {@code $}-key, escapes (a NUL among them) beside the
     * same characters unescaped, and no spaces. A backend that parses it (a JSON column, a BSON document) and prints
     * it again fails the round trip.
     */
    public static final String PAYLOAD = "{\"order\":42,\"n\":1.50,\"$weird\":\"kept\",\"big\":12345678901234567890,"
            + "\"s\":\"line\\nbreak \\u00e9 \u00e9 \u4e2d \\\"q\\\" \\/ \\u0000\",\"a\":[],\"b\":{}}";

    private ArchiveFixtures() {
    }

    /**
     * A job that died at {@code deadAt} after three attempts (its {@code finishedAt}), created at {@code createdAt}:
     * push delivery to a callback with a header, its own exponential backoff and timeout, {@link #PAYLOAD}, and the
     * history of the three failures.
     */
    public static Job deadJob(String topic, String id, long createdAt, long deadAt) {
        List<Attempt> history = List.of(
                new Attempt(1, deadAt - 200, "HTTP 500 from callback", 500),
                new Attempt(2, deadAt - 100, "connection refused", null),
                new Attempt(3, deadAt, "HTTP 503 from callback", 503));
        return new Job(topic, id, PAYLOAD, deadAt - 300, JobState.DEAD, 3, 3,
                new Backoff.Exponential(Duration.milliseconds(250), 1.5, Duration.minutes(5), 0.1),
                new Callback("http://127.0.0.1:9/hook", Map.of("X-Api-Key", "k")), 5_000L, false, Delivery.PUSH,
                createdAt, deadAt, "HTTP 503 from callback", history);
    }

    /**
     * A job that died at {@code deadAt} as {@link #deadJob} does, but pushed to {@code callbackUrl} with
     * {@code payload}, whose last attempt failed with {@code error} and {@code httpStatus} ({@code null}: no HTTP
     * answer, e.g. a refused connection). An earlier attempt got another status, so that only the last one can be
     * what a status filter or a failure signature reads.
     */
    public static Job failedJob(String topic, String id, long createdAt, long deadAt, String callbackUrl,
                                Integer httpStatus, String error, String payload) {
        List<Attempt> history = List.of(
                new Attempt(1, deadAt - 200, "HTTP 418 from callback", 418),
                new Attempt(2, deadAt - 100, "connection refused", null),
                new Attempt(3, deadAt, error, httpStatus));
        return new Job(topic, id, payload, deadAt - 300, JobState.DEAD, 3, 3, null, Callback.of(callbackUrl), 5_000L,
                false, Delivery.PUSH, createdAt, deadAt, error, history);
    }

    /** A pull job delivered at its first attempt and acknowledged at {@code finishedAt}. */
    public static Job succeededJob(String topic, String id, long createdAt, long finishedAt) {
        return new Job(topic, id, "{\"done\":true}", createdAt, JobState.SUCCEEDED, 1, 3, null, null, null, false,
                Delivery.PULL, createdAt, finishedAt, null, List.of(new Attempt(1, finishedAt, null, 200)));
    }

    /** The outbox entry that carries {@code job} (one per finished life, as a store writes it). */
    public static OutboxEntry entry(Job job) {
        return new OutboxEntry("e-" + job.id() + "-" + job.createdAt(), job);
    }

    /** One outbox entry per job, in order. */
    public static List<OutboxEntry> entries(Job... jobs) {
        return java.util.Arrays.stream(jobs).map(ArchiveFixtures::entry).toList();
    }
}
