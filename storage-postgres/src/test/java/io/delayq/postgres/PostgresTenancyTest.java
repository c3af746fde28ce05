package io.delayq.postgres;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.ratelimit.Rate;
import io.delayq.core.ratelimit.RateLimiters;
import io.delayq.core.tenant.ApiToken;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantRegistry;
import io.delayq.core.tenant.TokenKey;
import io.delayq.core.testing.CallTiming;
import io.delayq.postgres.testing.TestPostgres;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.config.ConfigRegistry;
import org.jdbi.v3.sqlobject.SqlObjects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.UUID;

import static io.delayq.core.testing.TenancyFixtures.SECRET;
import static io.delayq.core.testing.TenancyFixtures.tenantWithSecret;
import static io.delayq.core.testing.TenancyFixtures.token;
import static io.delayq.core.testing.TenancyFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The tenancy's and the token buckets' rows in PostgreSQL, beyond the contracts: records as JSON, an operators' token
 * under the tenant {@code ''}, last uses only for tokens that exist and gone with them, a damaged record named without
 * its secrets; an UNLOGGED bucket table, a row's time to be forgotten, the reaper dropping full buckets in batches
 * through its index and keeping the rest; and what a take costs.
 */
class PostgresTenancyTest {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresTenancyTest.class);

    private final String prefix = "p" + UUID.randomUUID().toString().substring(0, 8);
    private final String key = "test:" + prefix;
    private final PostgresJobStore store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
            TestPostgres.password(), PostgresStoreOptions.defaults());
    private final TenantRegistry registry = store.tenants();
    private final RateLimiters limiters = store.rateLimiters();
    private final Jdbi jdbi = Jdbi.create(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password());

    @AfterEach
    void close() {
        store.close();
    }

    // ------------------------------------------------------------------ the tenancy

    @Test
    void rowsHoldTheRecordsAsJsonAndAnOperatorsTokenUnderNoTenant() {
        Tenant tenant = tenantWithSecret(prefix + "-raw");
        ApiToken ops = token(null, prefix + "-ops", "admin");
        write(registry, v -> registry.putTenant(tenant, v));
        write(registry, v -> registry.putToken(ops, v));
        registry.recordUse(Map.of(ops.key(), 1_700_000_000_123L));

        assertThat(one("SELECT tenant ->> 'weight' FROM delayq_tenants WHERE name = ?", tenant.name()))
                .isEqualTo("2");
        assertThat(one("SELECT token ->> 'sha256' FROM delayq_tokens WHERE tenant = '' AND name = ?", ops.name()))
                .isEqualTo(ops.sha256());
        assertThat(one("SELECT delayq_ms(last_used_at) FROM delayq_tokens WHERE tenant = '' AND name = ?",
                ops.name())).isEqualTo("1700000000123");
        assertThat(Long.parseLong(one("SELECT version FROM delayq_tenancy"))).isEqualTo(registry.version());
        assertThat(registry.read().lastUsedAtMs()).containsEntry(ops.key(), 1_700_000_000_123L);

        write(registry, v -> registry.deleteTenant(tenant.name(), v));
        write(registry, v -> registry.deleteToken(ops.key(), v));
    }

    @Test
    void aDeletedTokenTakesItsLastUseAlongAndUnknownTokensGetNone() {
        ApiToken t = token(prefix + "-team", prefix + "-gone", "producer");
        TokenKey never = new TokenKey(prefix + "-team", prefix + "-never");
        write(registry, v -> registry.putToken(t, v));
        registry.recordUse(Map.of(t.key(), 1_000L, never, 2_000L));
        assertThat(registry.read().lastUsedAtMs()).containsEntry(t.key(), 1_000L).doesNotContainKey(never);

        write(registry, v -> registry.deleteToken(t.key(), v));
        assertThat(registry.read().lastUsedAtMs()).doesNotContainKey(t.key());
        assertThat(one("SELECT count(*) FROM delayq_tokens WHERE tenant = ?", prefix + "-team")).isEqualTo("0");
    }

    @Test
    void aRecordThatCannotBeReadFailsTheReadByNameWithoutItsSecrets() {
        Tenant tenant = tenantWithSecret(prefix + "-damaged");
        write(registry, v -> registry.putTenant(tenant, v));
        try {
            jdbi.useHandle(h -> h.execute("UPDATE delayq_tenants SET tenant = jsonb_set(tenant,"
                    + " '{signingSecrets,0,secret}', '\"too-short\"') WHERE name = ?", tenant.name()));
            assertThatThrownBy(registry::read).isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE))
                    .hasMessageContaining("tenant '" + tenant.name() + "' in delayq_tenants")
                    .hasMessageContaining("signingSecrets")
                    .hasMessageNotContaining("too-short").hasMessageNotContaining(SECRET);
        } finally {
            jdbi.useHandle(h -> h.execute("DELETE FROM delayq_tenants WHERE name = ?", tenant.name()));
        }
        assertThat(registry.read().tenants()).extracting(Tenant::name).doesNotContain(tenant.name());
    }

    // ------------------------------------------------------------------ token buckets

    @Test
    void theBucketsAreUnloggedAndARowIsForgottenOnceItsBucketIsFullRoundedToAMinute() {
        assertThat(one("SELECT relpersistence FROM pg_class WHERE relname = 'delayq_rate_buckets'")).isEqualTo("u");

        long before = store.now();
        limiters.take(key, new Rate(10, 100), 41);
        // 41 permits at 10/s are back in 4.1 s: forgotten at the first whole minute after that
        long forgetAt = Long.parseLong(one("SELECT delayq_ms(forget_at) FROM delayq_rate_buckets WHERE key = ?", key));
        assertThat(forgetAt % 60_000).isZero();
        assertThat(forgetAt).isGreaterThanOrEqualTo(before + 4_100).isLessThan(store.now() + 4_100 + 60_000);
        assertThat(one("SELECT tokens FROM delayq_rate_buckets WHERE key = ?", key)).isEqualTo("59");
    }

    @Test
    void theReaperDropsBucketsFullAgainAndKeepsTheOthers() {
        String idle = key + "-idle";
        String busy = key + "-busy";
        limiters.take(idle, new Rate(1, 5), 1);
        limiters.take(busy, new Rate(1, 5), 5);
        // as if its full time had passed a while ago (the real one is a minute or more away)
        jdbi.useHandle(h -> h.execute("UPDATE delayq_rate_buckets SET forget_at = delayq_now() - interval '1 second'"
                + " WHERE key = ?", idle));

        store.reap();

        assertThat(one("SELECT count(*) FROM delayq_rate_buckets WHERE key = ?", idle)).isEqualTo("0");
        assertThat(one("SELECT count(*) FROM delayq_rate_buckets WHERE key = ?", busy)).isEqualTo("1");
        assertThat(limiters.take(idle, new Rate(1, 5), 5).granted()).as("a forgotten bucket is a full one")
                .isEqualTo(5);
        assertThat(limiters.take(busy, new Rate(1, 5), 5).granted()).as("a kept one is as it was").isZero();
    }

    @Test
    void theReaperReadsIdleBucketsThroughItsIndexNeverEveryBucket() {
        String plan = jdbi.withHandle(h -> {
            h.begin();
            try {
                h.execute("SET LOCAL enable_seqscan = off");
                return String.join("\n", h.createQuery("EXPLAIN (COSTS OFF) " + statement("trim", int.class))
                        .bind("batch", 1_000).mapTo(String.class).list());
            } finally {
                h.rollback();
            }
        });
        assertThat(plan).contains("delayq_rate_buckets_forget").doesNotContain("Seq Scan");
    }

    @Test
    void manyTakesInARowAreGrantedAndTimed() {
        Rate rate = new Rate(1_000_000, 1_000_000);
        int[] granted = new int[1];
        int[] call = new int[1];
        // three alternating rounds of takes and of the store's clock (one trivial statement: the floor of any call),
        // the fastest round of each: the machine is shared, and a slow round says more about it than about a take
        double[] perCall = CallTiming.fastestRounds(3, 2_000,
                () -> granted[0] += limiters.take(key + ":tenant:" + (call[0]++ % 100) + ":enqueue", rate, 1)
                        .granted(),
                store::now);
        assertThat(granted[0]).isEqualTo(3 * 2_000);
        LOG.info("rate limit take: {} µs per call including the round trip; the clock's statement {} µs (1 thread,"
                + " 100 buckets, fastest of 3 rounds of 2,000)", String.format("%.1f", perCall[0]),
                String.format("%.1f", perCall[1]));
    }

    /** The one value of a query, as text. */
    private String one(String sql, Object... args) {
        return jdbi.withHandle(h -> {
            var query = h.createQuery(sql);
            for (int i = 0; i < args.length; i++) {
                query.bind(i, args[i]);
            }
            return query.mapTo(String.class).one();
        });
    }

    /** A statement as {@link BucketStatements} runs it. */
    private static String statement(String method, Class<?>... parameters) {
        try {
            return StatementFiles.jdbi(new PGSimpleDataSource()).getConfig(SqlObjects.class).getSqlLocator()
                    .locate(BucketStatements.class, BucketStatements.class.getMethod(method, parameters),
                            new ConfigRegistry());
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }
}
