package io.delayq.service.ratelimit;

import io.delayq.core.breaker.Origins;
import io.delayq.core.ratelimit.Grant;
import io.delayq.core.ratelimit.Rate;
import io.delayq.core.ratelimit.RateLimiters;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rate limits per callback origin ({@code scheme://host:port}, as the circuit breaker keys them), configured as
 * {@code delivery.originRateLimits}: whatever topics the callbacks come from, the origin gets at most its rate over
 * all instances together. The buckets are in the store ({@code origin:<origin>:deliver}); only configured origins
 * have one, and the store forgets a bucket once it is full again, so their number is bounded as circuits are.
 *
 * <p>The origin of a job is known only once it is leased (a job may name its own callback), so a batch is reserved
 * first and then admitted here with one take per limited origin in the batch; the leases beyond the grant are held
 * (postponed without using their attempt, as the breaker holds), spread over the time their permits will take to come.
 */
public final class OriginRateLimits {
    /** No origin limited. */
    public static final OriginRateLimits NONE = new OriginRateLimits(Map.of(), null, null);
    /** Longest a job is held for its origin's limit at a time: it is then due again and asks again. */
    static final long MAX_HOLD_MS = 3_600_000;
    private static final int MAX_CACHED_URLS = 10_000;

    private final Map<String, Rate> rates;
    private final RateLimiters limiters;
    private final RateLimitMetrics metrics;
    private final Map<String, String> originOfUrl = new ConcurrentHashMap<>();

    private OriginRateLimits(Map<String, Rate> rates, RateLimiters limiters, RateLimitMetrics metrics) {
        this.rates = rates;
        this.limiters = limiters;
        this.metrics = metrics;
    }

    /**
     * Checks the configured limits, keyed by origin or by any URL of it ({@code https://api.example.com} is
     * {@code https://api.example.com:443}).
     *
     * @throws IllegalArgumentException naming the entry that is wrong
     */
    public static Map<String, Rate> check(Map<String, RateLimitSpec> configured) {
        Map<String, Rate> rates = new LinkedHashMap<>();
        if (configured == null) {
            return rates;
        }
        for (Map.Entry<String, RateLimitSpec> e : configured.entrySet()) {
            String field = "delivery.originRateLimits[" + e.getKey() + "]";
            String origin;
            try {
                origin = Origins.of(e.getKey());
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException(field + ": the key must be an origin such as"
                        + " https://api.example.com (" + bad.getMessage() + ")");
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException(field + " needs {perSecond, burst}");
            }
            rates.put(origin, RateLimitChecks.check(field, e.getValue()));
        }
        return rates;
    }

    /** The limits of {@code configured} ({@link #check}), taking permits from {@code limiters}. */
    public static OriginRateLimits of(Map<String, RateLimitSpec> configured, RateLimiters limiters,
                                      RateLimitMetrics metrics) {
        Map<String, Rate> rates = check(configured);
        return rates.isEmpty() ? NONE : new OriginRateLimits(Map.copyOf(rates), limiters, metrics);
    }

    public boolean isEmpty() {
        return rates.isEmpty();
    }

    /** The limit of an origin, or null. */
    public Rate rate(String origin) {
        return rates.get(origin);
    }

    /**
     * Admits a batch of leased jobs by their callbacks' origins: one store call per limited origin in the batch.
     *
     * @param callbackUrls each job's callback URL, {@code null} for none (a broadcast, a job without callback)
     * @return per job, {@code -1} to deliver it now, or how long to hold it (ms)
     */
    public long[] admit(List<String> callbackUrls) {
        long[] holds = new long[callbackUrls.size()];
        Arrays.fill(holds, -1L);
        if (rates.isEmpty()) {
            return holds;
        }
        Map<String, int[]> byOrigin = new HashMap<>();
        String[] origins = new String[holds.length];
        for (int i = 0; i < holds.length; i++) {
            String origin = origin(callbackUrls.get(i));
            if (origin != null && rates.containsKey(origin)) {
                origins[i] = origin;
                byOrigin.computeIfAbsent(origin, o -> new int[1])[0]++;
            }
        }
        for (Map.Entry<String, int[]> e : byOrigin.entrySet()) {
            String origin = e.getKey();
            Rate rate = rates.get(origin);
            int wanted = e.getValue()[0];
            String key = key(origin);
            Grant grant = limiters.take(key, rate, wanted);
            metrics.took(key, wanted, grant.granted());
            int left = grant.granted();
            long spacingMs = (long) Math.ceil(1000 / rate.perSecond());
            long over = 0;
            for (int i = 0; i < holds.length; i++) {
                if (!origin.equals(origins[i])) {
                    continue;
                }
                if (left > 0) {
                    left--;
                } else {
                    // the k-th job over the limit waits for about the k-th permit to come
                    holds[i] = Math.min(MAX_HOLD_MS, Math.max(1, grant.retryAfterMs()) + over * spacingMs);
                    over++;
                }
            }
            if (over > 0) {
                metrics.heldForOrigin((int) over);
            }
        }
        return holds;
    }

    /** The bucket of an origin's deliveries. */
    public static String key(String origin) {
        return "origin:" + origin + ":deliver";
    }

    private String origin(String url) {
        if (url == null) {
            return null;
        }
        String known = originOfUrl.get(url);
        if (known != null) {
            return known;
        }
        String origin;
        try {
            origin = Origins.of(url);
        } catch (IllegalArgumentException notAbsolute) {
            return null; // refused when it is sent, not here
        }
        if (originOfUrl.size() >= MAX_CACHED_URLS) {
            originOfUrl.clear();
        }
        originOfUrl.put(url, origin);
        return origin;
    }
}
