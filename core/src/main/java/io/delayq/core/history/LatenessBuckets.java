package io.delayq.core.history;

import java.util.Arrays;

/**
 * Fixed histogram buckets for delivery lateness (ms between a job's due time and its delivery), from milliseconds to
 * minutes. Every instance counts into the same buckets, so stored counts add up across instances and minutes, and a
 * percentile is read off the sum ({@link #percentile}) at the resolution of the buckets.
 */
public final class LatenessBuckets {
    /** Upper bounds, inclusive, in ms; the last bucket holds everything above the last bound. */
    private static final long[] UPPER = {0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000,
        60_000, 300_000};
    /** How many buckets a histogram has ({@code UPPER.length + 1}). */
    public static final int COUNT = UPPER.length + 1;

    private LatenessBuckets() {
    }

    /** The bucket of a lateness in ms (negative counts as 0: early is on time). */
    public static int indexOf(long latenessMs) {
        for (int i = 0; i < UPPER.length; i++) {
            if (latenessMs <= UPPER[i]) {
                return i;
            }
        }
        return UPPER.length;
    }

    /** A bucket's upper bound in ms; {@code Long.MAX_VALUE} for the last. */
    public static long upperBound(int index) {
        return index < UPPER.length ? UPPER[index] : Long.MAX_VALUE;
    }

    /**
     * The upper bound of the bucket holding the {@code p}-th percentile ({@code 0 < p <= 100}) of a histogram, or
     * {@code -1} when it is empty; the last bucket reports the last finite bound.
     */
    public static long percentile(long[] counts, double p) {
        long total = Arrays.stream(counts).sum();
        if (total == 0) {
            return -1;
        }
        long rank = (long) Math.ceil(total * p / 100.0);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(upperBound(i), UPPER[UPPER.length - 1]);
            }
        }
        return UPPER[UPPER.length - 1];
    }
}
