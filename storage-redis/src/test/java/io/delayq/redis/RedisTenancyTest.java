package io.delayq.redis;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.ratelimit.Grant;
import io.delayq.core.ratelimit.Rate;
import io.delayq.core.ratelimit.RateLimiters;
import io.delayq.core.tenant.ApiToken;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantRegistry;
import io.delayq.core.tenant.TokenKey;
import io.delayq.core.testing.Await;
import io.delayq.core.testing.CallTiming;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.delayq.core.testing.TenancyFixtures.SECRET;
import static io.delayq.core.testing.TenancyFixtures.tenantWithSecret;
import static io.delayq.core.testing.TenancyFixtures.token;
import static io.delayq.core.testing.TenancyFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The tenancy's and the token buckets' raw state in Redis, beyond the contracts: the tenancy's keys in one slot,
 * records and fields as the README describes them, a damaged record named without its secrets, which writes wait for
 * replicas; one key per bucket under its own hash tag, gone once the bucket would be full, a damaged value read as a
 * full bucket; and what a take costs.
 */
class RedisTenancyTest {
    private static final Logger LOG = LoggerFactory.getLogger(RedisTenancyTest.class);

    private final String prefix = "r" + UUID.randomUUID().toString().substring(0, 8);
    private final String key = "test:" + prefix;
    private final RedisJobStore store = RedisJobStore.connect(TestRedis.sharedUri());
    private final TenantRegistry registry = store.tenants();
    private final RateLimiters limiters = store.rateLimiters();
    private final UnifiedJedis redis = RedisClient.create(TestRedis.sharedUri());

    @AfterEach
    void close() {
        redis.close();
        store.close();
    }

    // ------------------------------------------------------------------ the tenancy

    @Test
    void everyTenancyKeyIsInOneSlot() {
        List<String> keys = List.of(RedisKeys.TENANTS, RedisKeys.TOKENS, RedisKeys.TENANCY_VERSION,
                RedisKeys.TOKENS_USED);
        assertThat(keys.stream().map(JedisClusterCRC16::getSlot).distinct())
                .containsExactly(JedisClusterCRC16.getSlot("tenancy"));
    }

    @Test
    void recordsAreJsonUnderTheirNamesAndTokenFieldsNameTheirTenant() {
        Tenant tenant = tenantWithSecret(prefix + "-raw");
        ApiToken own = token(tenant.name(), prefix + "-ci", "producer");
        ApiToken ops = token(null, prefix + "-ops", "admin");
        write(registry, v -> registry.putTenant(tenant, v));
        write(registry, v -> registry.putToken(own, v));
        write(registry, v -> registry.putToken(ops, v));
        registry.recordUse(Map.of(ops.key(), 42L));

        assertThat(redis.hget(RedisKeys.TENANTS, tenant.name())).startsWith("{").contains("\"weight\":2")
                .contains(SECRET);
        assertThat(redis.hget(RedisKeys.TOKENS, tenant.name() + "/" + prefix + "-ci")).contains("\"sha256\"");
        assertThat(redis.hget(RedisKeys.TOKENS, "/" + prefix + "-ops")).contains("\"tenant\":null");
        assertThat(redis.hget(RedisKeys.TOKENS_USED, "/" + prefix + "-ops")).isEqualTo("42");
        assertThat(Long.parseLong(redis.get(RedisKeys.TENANCY_VERSION))).isEqualTo(registry.version());

        write(registry, v -> registry.deleteTenant(tenant.name(), v));
        write(registry, v -> registry.deleteToken(own.key(), v));
        write(registry, v -> registry.deleteToken(ops.key(), v));
    }

    @Test
    void aDeletedTokenTakesItsLastUseAlongAndUnknownTokensGetNone() {
        ApiToken t = token(null, prefix + "-gone", "producer");
        write(registry, v -> registry.putToken(t, v));
        registry.recordUse(Map.of(t.key(), 1_000L, new TokenKey(null, prefix + "-never"), 2_000L));
        assertThat(redis.hexists(RedisKeys.TOKENS_USED, "/" + prefix + "-gone")).isTrue();
        assertThat(redis.hexists(RedisKeys.TOKENS_USED, "/" + prefix + "-never")).isFalse();

        write(registry, v -> registry.deleteToken(t.key(), v));
        assertThat(redis.hexists(RedisKeys.TOKENS_USED, "/" + prefix + "-gone")).isFalse();
        assertThat(registry.read().lastUsedAtMs()).doesNotContainKey(t.key());
    }

    @Test
    void aRecordThatCannotBeReadFailsTheReadByNameWithoutItsSecrets() {
        Tenant tenant = tenantWithSecret(prefix + "-damaged");
        write(registry, v -> registry.putTenant(tenant, v));
        String stored = redis.hget(RedisKeys.TENANTS, tenant.name());
        try {
            redis.hset(RedisKeys.TENANTS, tenant.name(), stored.replace(SECRET, "too-short"));
            assertThatThrownBy(registry::read).isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE))
                    .hasMessageContaining("tenant '" + tenant.name() + "' in dq:{tenancy}:tenants")
                    .hasMessageContaining("signingSecrets")
                    .hasMessageNotContaining("too-short");
        } finally {
            redis.hdel(RedisKeys.TENANTS, tenant.name());
        }
        assertThat(registry.read().tenants()).extracting(Tenant::name).doesNotContain(tenant.name());
    }

    @Test
    void changesWaitForReplicasAndLastUsesDoNot() {
        Tenant tenant = tenantWithSecret(prefix + "-waited");
        ApiToken t = token(null, prefix + "-waited", "producer");
        write(registry, v -> registry.putToken(t, v));
        try (RedisJobStore waiting = RedisJobStore.connect(TestRedis.sharedUri(), RedisStoreOptions.defaults()
                .withMinReplicas(1, Duration.ofMillis(50)))) {
            TenantRegistry theirs = waiting.tenants();
            assertThatThrownBy(() -> theirs.putTenant(tenant, theirs.version()))
                    .isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE))
                    .hasMessageContaining("reached 0 of 1");
            theirs.recordUse(Map.of(t.key(), 7L));
            assertThat(theirs.read().lastUsedAtMs()).containsEntry(t.key(), 7L);
            // refused to the caller, yet on the master: the caller reads again and finds it done
            assertThatThrownBy(() -> theirs.deleteToken(t.key(), theirs.version()))
                    .hasMessageContaining("reached 0 of 1");
            assertThat(registry.read().tokens()).extracting(ApiToken::key).doesNotContain(t.key());
            assertThat(waiting.rateLimiters().take(key, new Rate(1, 1), 1).granted()).as("takes do not wait")
                    .isEqualTo(1);
        } finally {
            write(registry, v -> registry.deleteTenant(tenant.name(), v));
            write(registry, v -> registry.deleteToken(t.key(), v));
        }
    }

    // ------------------------------------------------------------------ token buckets

    @Test
    void aBucketIsOneKeyWithAHashTagOfItsOwn() {
        limiters.take(key, new Rate(10, 100), 1);
        String bucket = "dq:{rl:" + key + "}";
        assertThat(redis.get(bucket)).matches("99 \\d{16}");
        assertThat(JedisClusterCRC16.getSlot(bucket)).isEqualTo(JedisClusterCRC16.getSlot("rl:" + key));
    }

    @Test
    void aBucketKeyIsGoneOnceTheBucketWouldBeFull() {
        Rate rate = new Rate(1_000, 5);
        String bucket = RedisKeys.bucket(key);
        assertThat(limiters.take(key, rate, 5).granted()).isEqualTo(5);
        assertThat(redis.pttl(bucket)).isBetween(1L, rate.fullAfterMs() + 1);
        long taken = store.now();
        while (store.now() - taken <= rate.fullAfterMs() + 1) {
            Await.sleep(2);
        }
        assertThat(redis.exists(bucket)).as("gone after its full time, %d ms", rate.fullAfterMs()).isFalse();

        // kept only until full again, not fullAfterMs: one permit of 100 at 10/s is back in 100 ms, not 10 s
        Rate slow = new Rate(10, 100);
        limiters.take(key, slow, 1);
        assertThat(redis.pttl(bucket)).isBetween(1L, 101L);
    }

    @Test
    void aValueThatCannotBeReadIsAFullBucket() {
        redis.set(RedisKeys.bucket(key), "not a bucket");
        assertThat(limiters.take(key, new Rate(1, 3), 5)).isEqualTo(new Grant(3, 1_000));
    }

    @Test
    void aTakeIsOneScriptCall() {
        try (EmbeddedRedis server = EmbeddedRedis.start(0, null, false);
             RedisJobStore own = RedisJobStore.connect(server.uri());
             UnifiedJedis admin = RedisClient.create(server.uri())) {
            RateLimiters buckets = own.rateLimiters();
            Rate rate = new Rate(1_000_000, 1_000_000);
            int[] granted = new int[1];
            int[] call = new int[1];
            Runnable take = () -> granted[0] += buckets.take("tenant:t" + (call[0]++ % 100) + ":enqueue", rate, 1)
                    .granted();
            CallTiming.fastestRounds(1, 2_000, take, own::now);

            long evalsBefore = commandStat(admin, "evalsha", "calls");
            long usecBefore = commandStat(admin, "evalsha", "usec");
            int takes = 10_000;
            for (int i = 0; i < takes; i++) {
                take.run();
            }
            long evals = commandStat(admin, "evalsha", "calls") - evalsBefore;
            double serverMicros = (commandStat(admin, "evalsha", "usec") - usecBefore) / (double) evals;
            assertThat(evals).as("one EVALSHA per take").isEqualTo(takes);

            // three alternating rounds of takes and of the store's clock (now.lua: the floor of any script call), the
            // fastest round of each: the machine is shared, and a slow round says more about it than about a take
            double[] perCall = CallTiming.fastestRounds(3, 2_000, take, own::now);
            assertThat(granted[0]).isEqualTo(2_000 + takes + 3 * 2_000);
            LOG.info("rate limit take: {} µs per call including the round trip, {} µs of it in Redis; the clock's"
                    + " script {} µs (1 thread, 100 buckets, fastest of 3 rounds of 2,000)",
                    String.format("%.1f", perCall[0]), String.format("%.1f", serverMicros),
                    String.format("%.1f", perCall[1]));
        }
    }

    /** A field of a command's line in INFO commandstats ({@code cmdstat_evalsha:calls=5,usec=123,…}). */
    private static long commandStat(UnifiedJedis admin, String command, String field) {
        for (String line : admin.info("commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                for (String pair : line.substring(line.indexOf(':') + 1).split(",")) {
                    if (pair.startsWith(field + "=")) {
                        return Long.parseLong(pair.substring(field.length() + 1));
                    }
                }
            }
        }
        return 0;
    }
}
