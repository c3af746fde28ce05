package io.delayq.service.ratelimit;

import io.delayq.core.ratelimit.Grant;
import io.delayq.core.ratelimit.Rate;
import io.delayq.core.ratelimit.RateLimiters;

import java.util.function.Supplier;

/**
 * A topic's {@code rateLimit}: permits for its deliveries and pull leases, from one bucket in the store
 * ({@code topic:<topic>:deliver}), so that the limit holds over every instance together. One take per reserve, before
 * it: the reserve then asks for at most as many jobs as were granted, so no job beyond the limit is leased and none
 * uses an attempt by waiting. How many permits a take asks for follows the demand ({@link AskSizes}).
 */
public final class TopicPermits {
    /** Who asks: push turns and pull leases of one topic share its bucket, but their demand is learnt apart. */
    public enum Lane { PUSH, PULL }

    /**
     * What one take got.
     *
     * @param asked        permits asked for
     * @param granted      permits granted: jobs that may be reserved now
     * @param retryAfterMs when {@code granted < asked}: how long until the next permit (store's clock), else 0
     */
    public record Taken(int asked, int granted, long retryAfterMs) {
        /** The limit, not the demand, cut the batch: more jobs may be due and wait for a permit. */
        public boolean limited() {
            return granted < asked;
        }
    }

    private final Supplier<RateLimiters> limiters;
    private final RateLimitMetrics metrics;
    private final AskSizes asks = new AskSizes();

    /** @param limiters the store's buckets, asked for at the first take (a store without any fails only then) */
    public TopicPermits(Supplier<RateLimiters> limiters, RateLimitMetrics metrics) {
        this.limiters = limiters;
        this.metrics = metrics;
    }

    /** The bucket of a topic's deliveries (push and pull). */
    public static String key(String topic) {
        return "topic:" + topic + ":deliver";
    }

    /** Takes permits for up to {@code wanted} jobs of the topic: one store call. */
    public Taken take(String topic, Lane lane, Rate rate, int wanted) {
        int ask = asks.ask(asker(topic, lane), wanted);
        String key = key(topic);
        Grant grant = limiters.get().take(key, rate, ask);
        metrics.took(key, ask, grant.granted());
        return new Taken(ask, grant.granted(), grant.granted() < ask ? Math.max(1, grant.retryAfterMs()) : 0);
    }

    /** What the reserve after a take found: {@code got} jobs for {@code taken.granted()} permits. */
    public void reserved(String topic, Lane lane, Taken taken, int got) {
        if (taken.granted() > 0) {
            asks.learn(asker(topic, lane), taken.asked(), taken.granted(), got);
        }
    }

    private static String asker(String topic, Lane lane) {
        return lane == Lane.PUSH ? "push:" + topic : "pull:" + topic;
    }
}
