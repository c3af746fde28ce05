package io.delayq.core.ratelimit;

/**
 * Token buckets kept in the store, so that a limit holds across every service instance — never the limit divided by
 * the number of instances. Tenants' enqueue quotas, topics' and callback origins' delivery rate limits all take their
 * permits here.
 *
 * <p>Each {@link #take} is one atomic operation on one bucket, by the store's clock: the bucket is refilled for the
 * time since its last take, then up to {@code wanted} permits are taken. A bucket nobody takes from is forgotten once
 * it would be full again ({@link Rate#fullAfterMs()}), so buckets cost nothing while idle and their number is bounded
 * by those in use. Changing a key's rate takes effect at its next take (a fuller bucket is cut down to the new burst).
 */
public interface RateLimiters {
    /** The longest bucket key: keys are made of names users choose (topics, origins), so they are bounded. */
    int MAX_KEY_CHARS = 512;

    /**
     * Takes up to {@code wanted} permits from the bucket named {@code key}.
     *
     * @param key    names the bucket; 1 to 512 characters (e.g. {@code tenant:billing:enqueue},
     *               {@code topic:orders:deliver})
     * @param wanted 1 or more
     */
    Grant take(String key, Rate rate, int wanted);

    /**
     * What every store checks before a {@link #take}: a key of 1 to {@value #MAX_KEY_CHARS} characters, a rate, and
     * 1 or more permits wanted.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static void checkTake(String key, Rate rate, int wanted) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY_CHARS) {
            throw new IllegalArgumentException("a rate limit's key is 1 to " + MAX_KEY_CHARS + " characters; it was "
                    + (key == null ? "null" : key.length() + " characters"));
        }
        if (rate == null) {
            throw new IllegalArgumentException("a take needs the bucket's rate");
        }
        if (wanted < 1) {
            throw new IllegalArgumentException("a take wants 1 or more permits; it wanted " + wanted);
        }
    }
}
