package io.delayq.core;

import io.delayq.core.tenant.ApiToken;
import io.delayq.core.tenant.SigningSecret;
import io.delayq.core.tenant.TenancySnapshot;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.delayq.core.tenant.TenantRegistry;
import io.delayq.core.tenant.TokenKey;
import io.delayq.core.tenant.TopicPattern;
import io.delayq.core.testing.TenancyFixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every store's {@link TenantRegistry} promises, run against a real backend by each store module. The registry
 * is one per backend and other test classes may change it at the same time, so every test works with names of its
 * own, and a compare-and-set that must succeed is retried on a version another test moved.
 */
public abstract class TenantRegistryContract {

    /** A new store on the shared test backend; closed after each test. */
    protected abstract JobStore newStore();

    protected JobStore store;
    protected TenantRegistry registry;
    private String prefix;

    @BeforeEach
    void open() {
        store = newStore();
        registry = store.tenants();
        prefix = "t" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aTenantComesBackWithEveryField() {
        Tenant billing = new Tenant(prefix + "-billing",
                List.of(TopicPattern.of(prefix + ".billing.*"), TopicPattern.of(prefix + ".invoices")),
                new TenantQuotas(10_000L, 50.5, 200, 32_768, 30), 3,
                List.of(new SigningSecret("2026-11", "s3cret-s3cret-s3cret"),
                        new SigningSecret("2026-12", "an0ther-s3cret-value")), false);
        write(v -> registry.putTenant(billing, v));

        assertThat(tenant(billing.name())).contains(billing);
    }

    @Test
    void aTenantWithoutQuotasOrSecretsComesBackAsWritten() {
        Tenant plain = new Tenant(prefix + "-plain", List.of(TopicPattern.of(prefix + ".*")), TenantQuotas.none(), 1,
                List.of(), false);
        write(v -> registry.putTenant(plain, v));

        assertThat(tenant(plain.name())).contains(plain);
    }

    @Test
    void aPutReplacesTheWholeTenant() {
        Tenant first = tenant(prefix + "-x", prefix + ".a.*", 1);
        write(v -> registry.putTenant(first, v));
        Tenant second = new Tenant(first.name(), List.of(TopicPattern.of(prefix + ".b.*")),
                new TenantQuotas(5L, null, null, null, null), 7, List.of(), false);
        write(v -> registry.putTenant(second, v));

        assertThat(tenant(first.name())).contains(second);
    }

    @Test
    void everyChangeMovesTheVersionAndAStaleVersionChangesNothing() {
        long before = registry.version();
        Tenant t = tenant(prefix + "-v", prefix + ".v.*", 1);
        long written = write(v -> registry.putTenant(t, v));
        assertThat(registry.version()).isGreaterThan(before).isGreaterThan(written);

        Tenant other = tenant(prefix + "-stale", prefix + ".stale.*", 1);
        assertThat(registry.putTenant(other, written)).isFalse();
        assertThat(registry.deleteTenant(t.name(), written)).isFalse();
        assertThat(registry.putToken(token(null, prefix + "-stale"), written)).isFalse();
        ApiToken kept = token(null, prefix + "-kept");
        write(v -> registry.putToken(kept, v));
        assertThat(registry.deleteToken(kept.key(), written)).isFalse();
        assertThat(token(kept.key())).contains(kept);
        assertThat(tenant(other.name())).isEmpty();
        assertThat(tenant(t.name())).contains(t);
        assertThat(token(new TokenKey(null, prefix + "-stale"))).isEmpty();
    }

    @Test
    void ofTwoWritersWithTheSameVersionOnlyOneWins() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                Tenant a = tenant(prefix + "-a" + round, prefix + ".race" + round + ".*", 1);
                Tenant b = tenant(prefix + "-b" + round, prefix + ".race" + round + ".x.*", 1);
                long version = registry.version();
                CyclicBarrier start = new CyclicBarrier(2);
                Future<Boolean> fa = pool.submit(() -> {
                    start.await();
                    return registry.putTenant(a, version);
                });
                Future<Boolean> fb = pool.submit(() -> {
                    start.await();
                    return registry.putTenant(b, version);
                });
                boolean wonA = fa.get();
                boolean wonB = fb.get();
                assertThat(wonA && wonB).as("both writers of version %d won", version).isFalse();
                assertThat(tenant(a.name()).isPresent()).isEqualTo(wonA);
                assertThat(tenant(b.name()).isPresent()).isEqualTo(wonB);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aDeletedTenantIsGoneAndDeletingAMissingOneMovesNothing() {
        Tenant t = tenant(prefix + "-del", prefix + ".del.*", 1);
        write(v -> registry.putTenant(t, v));
        write(v -> registry.deleteTenant(t.name(), v));
        assertThat(tenant(t.name())).isEmpty();

        long version = registry.version();
        boolean answered = registry.deleteTenant(prefix + "-never", version);
        if (answered) {
            assertThat(registry.version()).as("deleting nothing moves no version").isEqualTo(version);
        }
    }

    @Test
    void tokensComeBackWithEveryFieldAndNeverTheirValue() {
        ApiToken operators = token(null, prefix + "-ops");
        ApiToken billing = new ApiToken(prefix + "-billing", prefix + "-ci", Set.of("producer", "viewer"),
                "ab".repeat(32), 1_700_000_000_000L, 1_800_000_000_000L, null, false);
        write(v -> registry.putToken(operators, v));
        write(v -> registry.putToken(billing, v));

        assertThat(token(operators.key())).contains(operators);
        assertThat(token(billing.key())).contains(billing);
        // one name in two tenants is two tokens
        ApiToken sameName = new ApiToken(prefix + "-other", prefix + "-ci", Set.of("consumer"), "cd".repeat(32),
                1_700_000_000_000L, null, null, false);
        write(v -> registry.putToken(sameName, v));
        assertThat(token(billing.key())).contains(billing);
        assertThat(token(sameName.key())).contains(sameName);
    }

    @Test
    void aRevokedTokenIsKeptWithItsRevocationAndADeletedOneIsGone() {
        ApiToken t = token(prefix + "-team", prefix + "-old");
        write(v -> registry.putToken(t, v));
        ApiToken revoked = t.revoked(1_750_000_000_000L);
        write(v -> registry.putToken(revoked, v));
        assertThat(token(t.key())).contains(revoked);
        assertThat(token(t.key()).orElseThrow().isActive(1_760_000_000_000L)).isFalse();

        write(v -> registry.deleteToken(t.key(), v));
        assertThat(token(t.key())).isEmpty();
    }

    @Test
    void lastUseOnlyRisesAndMovesNoVersion() {
        ApiToken t = token(null, prefix + "-used");
        write(v -> registry.putToken(t, v));
        TokenKey key = t.key();
        long version = registry.version();

        registry.recordUse(Map.of(key, 2_000L));
        registry.recordUse(Map.of(key, 1_000L));
        assertThat(registry.read().lastUsedAtMs()).containsEntry(key, 2_000L);
        registry.recordUse(Map.of(key, 3_000L));
        TenancySnapshot after = registry.read();
        assertThat(after.lastUsedAtMs()).containsEntry(key, 3_000L);
        assertThat(registry.version()).as("another test may have moved it, never this one").isGreaterThanOrEqualTo(
                version);
    }

    @Test
    void aSnapshotCarriesTheVersionItWasReadAt() {
        Tenant t = tenant(prefix + "-snap", prefix + ".snap.*", 1);
        write(v -> registry.putTenant(t, v));
        long before = registry.version();
        TenancySnapshot snapshot = registry.read();
        long after = registry.version();
        assertThat(snapshot.version()).isBetween(before, after);
        assertThat(snapshot.tenants()).contains(t);
    }

    @Test
    void anotherInstanceSeesEveryChange() {
        try (JobStore other = newStore()) {
            TenantRegistry theirs = other.tenants();
            Tenant t = tenant(prefix + "-shared", prefix + ".shared.*", 2);
            ApiToken tok = token(t.name(), prefix + "-shared");
            long version = write(v -> registry.putTenant(t, v));
            assertThat(theirs.version()).isGreaterThan(version);
            assertThat(theirs.read().tenants()).contains(t);

            assertThat(theirs.putToken(tok, version)).as("a version the other instance moved").isFalse();
            write(v -> theirs.putToken(tok, v));
            assertThat(token(tok.key())).contains(tok);
            theirs.recordUse(Map.of(tok.key(), 5_000L));
            assertThat(registry.read().lastUsedAtMs()).containsEntry(tok.key(), 5_000L);
        }
    }

    @Test
    void lastUsesOfSeveralTokensAreRecordedInOneCall() {
        ApiToken a = token(null, prefix + "-use-a");
        ApiToken b = token(prefix + "-team", prefix + "-use-b");
        write(v -> registry.putToken(a, v));
        write(v -> registry.putToken(b, v));

        registry.recordUse(Map.of(a.key(), 10_000L, b.key(), 20_000L));
        Map<TokenKey, Long> used = registry.read().lastUsedAtMs();
        assertThat(used).containsEntry(a.key(), 10_000L).containsEntry(b.key(), 20_000L);
        registry.recordUse(Map.of(a.key(), 9_000L, b.key(), 21_000L));
        used = registry.read().lastUsedAtMs();
        assertThat(used).containsEntry(a.key(), 10_000L).containsEntry(b.key(), 21_000L);
    }

    // ------------------------------------------------------------------ helpers

    /** Retries a compare-and-set on a version other tests may be moving; answers the version it succeeded on. */
    private long write(Function<Long, Boolean> change) {
        return TenancyFixtures.write(registry, change::apply);
    }

    private Optional<Tenant> tenant(String name) {
        return registry.read().tenants().stream().filter(t -> t.name().equals(name)).findFirst();
    }

    private Optional<ApiToken> token(TokenKey key) {
        return registry.read().tokens().stream().filter(t -> t.key().equals(key)).findFirst();
    }

    private static Tenant tenant(String name, String pattern, int weight) {
        return new Tenant(name, List.of(TopicPattern.of(pattern)), TenantQuotas.none(), weight, List.of(), false);
    }

    private static ApiToken token(String tenant, String name) {
        return TenancyFixtures.token(tenant, name, "admin");
    }
}
