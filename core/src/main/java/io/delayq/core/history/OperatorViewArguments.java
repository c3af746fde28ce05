package io.delayq.core.history;

import io.delayq.core.JobRules;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bounds of the operator views ({@code dueForecast}, {@code leasesInFlight}, {@code addHistory},
 * {@code history}): what one call may ask, so that a dashboard's request never costs the store more than a fixed
 * number of commands. Refusals are {@link IllegalArgumentException}s that say what to ask instead.
 */
public final class OperatorViewArguments {
    /** A week of one-minute buckets. */
    public static final int MAX_FORECAST_BUCKETS = 10_080;
    public static final long MIN_FORECAST_BUCKET_MS = 1_000;
    public static final int MAX_LEASES_LISTED = 10_000;
    /** The retention: a longer range can only find minutes that are gone. */
    public static final long MAX_HISTORY_MINUTES = TopicMinute.RETENTION_MS / TopicMinute.MINUTE_MS;

    private OperatorViewArguments() {
    }

    /** Checks a forecast request and returns the end of its window (exclusive), epoch ms. */
    public static long forecastEnd(String topic, long fromMs, long bucketMs, int buckets) {
        JobRules.checkTopic(topic);
        if (buckets < 1 || buckets > MAX_FORECAST_BUCKETS) {
            throw new IllegalArgumentException("buckets is " + buckets + "; ask for 1 to " + MAX_FORECAST_BUCKETS);
        }
        if (bucketMs < MIN_FORECAST_BUCKET_MS) {
            throw new IllegalArgumentException("bucketMs is " + bucketMs + "; a bucket is at least "
                    + MIN_FORECAST_BUCKET_MS + " ms");
        }
        if (fromMs < 0) {
            throw new IllegalArgumentException("fromMs is " + fromMs + "; give an epoch ms of 0 or more");
        }
        try {
            return Math.addExact(fromMs, Math.multiplyExact(bucketMs, (long) buckets));
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("a forecast of " + buckets + " buckets of " + bucketMs + " ms from "
                    + fromMs + " ends beyond the range of epoch ms; ask for fewer or shorter buckets");
        }
    }

    public static void checkLeaseLimit(String topic, int limit) {
        JobRules.checkTopic(topic);
        if (limit < 1 || limit > MAX_LEASES_LISTED) {
            throw new IllegalArgumentException("limit is " + limit + "; ask for 1 to " + MAX_LEASES_LISTED + " leases");
        }
    }

    /**
     * Checks a history range and returns the start of its first minute: the minutes whose start lies in
     * {@code [fromMinute, toMinute)}.
     */
    public static long firstMinute(String topic, long fromMinute, long toMinute) {
        JobRules.checkTopic(topic);
        if (fromMinute < 0 || toMinute < fromMinute) {
            throw new IllegalArgumentException("the history range [" + fromMinute + ", " + toMinute + ") is not a range"
                    + " of epoch ms: fromMinute must be 0 or more and toMinute not before it");
        }
        if (toMinute - fromMinute > MAX_HISTORY_MINUTES * TopicMinute.MINUTE_MS) {
            throw new IllegalArgumentException("the history range [" + fromMinute + ", " + toMinute + ") spans more"
                    + " than " + MAX_HISTORY_MINUTES + " minutes (7 days, how long minutes are kept); ask for less");
        }
        long rest = fromMinute % TopicMinute.MINUTE_MS;
        return rest == 0 ? fromMinute : fromMinute - rest + TopicMinute.MINUTE_MS;
    }

    /**
     * The increments of one {@code addHistory} call, checked, with repeats of a topic and minute added together and
     * empty ones left out, sorted by topic and minute (the order in which every instance writes them).
     */
    public static List<TopicMinute> mergedIncrements(List<TopicMinute> increments) {
        Map<String, TopicMinute> byKey = new LinkedHashMap<>();
        for (TopicMinute m : increments) {
            JobRules.checkTopic(m.topic());
            checkCounts(m);
            if (!m.isEmpty()) {
                byKey.merge(m.topic() + "@" + m.minute(), m, TopicMinute::plus);
            }
        }
        List<TopicMinute> sorted = new ArrayList<>(byKey.values());
        sorted.sort(Comparator.comparing(TopicMinute::topic).thenComparingLong(TopicMinute::minute));
        return sorted;
    }

    /** History only adds: a negative count would be a bug in the caller's counting, not a correction. */
    private static void checkCounts(TopicMinute m) {
        boolean negative = m.enqueued() < 0 || m.delivered() < 0 || m.failed() < 0 || m.dead() < 0;
        for (int i = 0; i < LatenessBuckets.COUNT && !negative; i++) {
            negative = m.lateness()[i] < 0;
        }
        if (negative) {
            throw new IllegalArgumentException("history increment " + m + " has a negative count; counts only add up");
        }
    }
}
