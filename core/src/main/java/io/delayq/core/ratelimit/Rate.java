package io.delayq.core.ratelimit;

/**
 * A token bucket's shape: refilled at {@code perSecond}, holding at most {@code burst}. Over any window of {@code T}
 * seconds, at most {@code burst + perSecond × T} permits are granted.
 */
public record Rate(double perSecond, int burst) {
    public static final double MAX_PER_SECOND = 1_000_000;

    public Rate {
        if (!(perSecond > 0 && perSecond <= MAX_PER_SECOND)) {
            throw new IllegalArgumentException("perSecond must be more than 0 and at most " + (long) MAX_PER_SECOND
                    + "; it was " + perSecond);
        }
        if (burst < 1 || burst > MAX_PER_SECOND) {
            throw new IllegalArgumentException("burst must be 1 to " + (long) MAX_PER_SECOND + "; it was " + burst);
        }
    }

    /** How long an empty bucket takes to fill up, in ms: how long a bucket nobody uses needs to be kept. */
    public long fullAfterMs() {
        return (long) Math.ceil(burst * 1000.0 / perSecond);
    }
}
