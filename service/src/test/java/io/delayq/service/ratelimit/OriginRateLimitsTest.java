package io.delayq.service.ratelimit;

import com.codahale.metrics.MetricRegistry;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Per-origin rate limits on a real Redis: a reserved batch is admitted with one take per limited origin, the leases
 * beyond the grant are held, spread over the time their permits take, and other origins pass untouched. The
 * configuration is checked entry by entry.
 */
class OriginRateLimitsTest {
    private static RedisJobStore store;

    @BeforeAll
    static void connect() {
        store = RedisJobStore.connect(TestRedis.sharedUri());
    }

    @AfterAll
    static void disconnect() {
        store.close();
    }

    @Test
    void aBatchTakesOnePermitPerJobOfALimitedOriginAndHoldsTheRestSpreadOut() {
        String host = "h" + UUID.randomUUID().toString().substring(0, 8) + ".example";
        MetricRegistry registry = new MetricRegistry();
        OriginRateLimits limits = OriginRateLimits.of(
                Map.of("https://" + host, new RateLimitSpec(10.0, 3)), store.rateLimiters(),
                new RateLimitMetrics(registry));
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            urls.add("https://" + host.toUpperCase() + ":443/hook/" + i); // the same origin, written otherwise
        }
        urls.add("https://elsewhere.example/hook");
        urls.add(null); // a broadcast or a job without callback

        long[] holds = limits.admit(urls);

        assertThat(Arrays.stream(holds, 0, 3)).as("the burst goes now").allMatch(h -> h == -1L);
        assertThat(Arrays.stream(holds, 3, 8)).as("the rest is held").allMatch(h -> h > 0);
        for (int i = 4; i < 8; i++) {
            assertThat(holds[i] - holds[i - 1]).as("spread by 1/perSecond").isEqualTo(100);
        }
        assertThat(holds[8]).as("an origin without a limit").isEqualTo(-1L);
        assertThat(holds[9]).as("no callback").isEqualTo(-1L);
        assertThat(registry.meter("delayq.ratelimit.permits-granted").getCount()).isEqualTo(3);
        assertThat(registry.meter("delayq.ratelimit.origin-held").getCount()).isEqualTo(5);
        assertThat(registry.meter("delayq.ratelimit.limited").getCount()).isEqualTo(1);

        long[] again = limits.admit(List.of("https://" + host + "/x"));
        assertThat(again[0]).as("the bucket is shared by the next batch: still empty").isPositive();
    }

    @Test
    void theConfigurationIsCheckedEntryByEntry() {
        assertThat(OriginRateLimits.check(Map.of("http://API.example.com", new RateLimitSpec(5.0, null))))
                .containsEntry("http://api.example.com:80", new io.delayq.core.ratelimit.Rate(5.0, 1));
        assertThatThrownBy(() -> OriginRateLimits.check(Map.of("api.example.com", new RateLimitSpec(5.0, 1))))
                .hasMessageContaining("delivery.originRateLimits[api.example.com]");
        assertThatThrownBy(() -> OriginRateLimits.check(Map.of("https://a.example", new RateLimitSpec(0.0, 1))))
                .hasMessageContaining("delivery.originRateLimits[https://a.example].perSecond");
        assertThatThrownBy(() -> OriginRateLimits.check(Map.of("https://a.example", new RateLimitSpec(1.0, 0))))
                .hasMessageContaining("delivery.originRateLimits[https://a.example].burst");
    }
}
