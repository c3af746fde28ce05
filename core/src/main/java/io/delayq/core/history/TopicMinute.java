package io.delayq.core.history;

import java.util.Arrays;
import java.util.Objects;

/**
 * What happened in one topic in one minute, summed over every service instance: the unit of the per-topic history
 * that the store keeps for {@link #RETENTION_MS} ({@code JobStore#addHistory}, {@code JobStore#history}).
 *
 * @param topic     the topic
 * @param minute    the minute's start, epoch ms (a multiple of 60,000)
 * @param enqueued  jobs created
 * @param delivered attempts that succeeded
 * @param failed    attempts that failed (and will be retried or died)
 * @param dead      jobs that became dead letters, whatever the cause
 * @param expired   of those, jobs not delivered by their expiry (cause {@code EXPIRED})
 * @param noRetry   of those, jobs ended by an answer that means "don't retry" (cause {@code NO_RETRY})
 * @param lateness  delivered attempts per {@link LatenessBuckets} bucket, {@link LatenessBuckets#COUNT} long
 */
public record TopicMinute(String topic, long minute, long enqueued, long delivered, long failed, long dead,
                          long expired, long noRetry, long[] lateness) {
    public static final long MINUTE_MS = 60_000;
    /** How long the store keeps a minute: 7 days. */
    public static final long RETENTION_MS = 7L * 24 * 3_600_000;

    public TopicMinute {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(lateness, "lateness");
        if (minute % MINUTE_MS != 0) {
            throw new IllegalArgumentException("minute " + minute + " is not the start of a minute");
        }
        if (lateness.length != LatenessBuckets.COUNT) {
            throw new IllegalArgumentException("lateness has " + lateness.length + " buckets; expected "
                    + LatenessBuckets.COUNT);
        }
    }

    /** A minute without dead letters by cause (the form before causes were counted). */
    public TopicMinute(String topic, long minute, long enqueued, long delivered, long failed, long dead,
                       long[] lateness) {
        this(topic, minute, enqueued, delivered, failed, dead, 0, 0, lateness);
    }

    /** An empty minute. */
    public static TopicMinute empty(String topic, long minute) {
        return new TopicMinute(topic, minute, 0, 0, 0, 0, new long[LatenessBuckets.COUNT]);
    }

    /** The sum of this and another minute of the same topic and start. */
    public TopicMinute plus(TopicMinute other) {
        if (!topic.equals(other.topic) || minute != other.minute) {
            throw new IllegalArgumentException("cannot add " + other.topic + "@" + other.minute + " to " + topic + "@"
                    + minute);
        }
        long[] sum = lateness.clone();
        for (int i = 0; i < sum.length; i++) {
            sum[i] += other.lateness[i];
        }
        return new TopicMinute(topic, minute, enqueued + other.enqueued, delivered + other.delivered,
                failed + other.failed, dead + other.dead, expired + other.expired, noRetry + other.noRetry, sum);
    }

    public boolean isEmpty() {
        return enqueued == 0 && delivered == 0 && failed == 0 && dead == 0 && expired == 0 && noRetry == 0
                && Arrays.stream(lateness).allMatch(c -> c == 0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TopicMinute m && topic.equals(m.topic) && minute == m.minute && enqueued == m.enqueued
                && delivered == m.delivered && failed == m.failed && dead == m.dead && expired == m.expired
                && noRetry == m.noRetry && Arrays.equals(lateness, m.lateness);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, minute, enqueued, delivered, failed, dead, expired, noRetry,
                Arrays.hashCode(lateness));
    }

    @Override
    public String toString() {
        return "TopicMinute[" + topic + "@" + minute + " enqueued=" + enqueued + " delivered=" + delivered + " failed="
                + failed + " dead=" + dead + " expired=" + expired + " noRetry=" + noRetry + " lateness=" + Arrays.toString(lateness) + "]";
    }
}
