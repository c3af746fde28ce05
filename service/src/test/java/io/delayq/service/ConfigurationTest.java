package io.delayq.service;

import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.service.auth.TokenTenants;
import io.delayq.mongo.MongoJobArchiveFactory;
import io.delayq.postgres.PostgresJobStoreFactory;
import io.delayq.postgres.archive.PostgresJobArchiveFactory;
import io.delayq.redis.RedisJobStoreFactory;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.jersey.validation.Validators;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The root config.yml (the embedded default) parses and validates, with environment substitution. */
class ConfigurationTest {
    private final YamlConfigurationFactory<DelayqConfiguration> factory = new YamlConfigurationFactory<>(
            DelayqConfiguration.class, Validators.newValidator(), DelayqApplication.configure(Jackson.newObjectMapper()), "dw");

    private static Path rootConfig() {
        Path fromModule = Path.of("..", "config.yml");
        return Files.exists(fromModule) ? fromModule : Path.of("config.yml");
    }

    @Test
    void rootConfigIsTheEmbeddedDefault() throws Exception {
        DelayqConfiguration config = factory.build(new SubstitutingSourceProvider(
                new FileConfigurationSourceProvider(), DelayqApplication.environmentSubstitutor()),
                rootConfig().toString());

        assertThat(config.getStore()).isInstanceOf(RedisJobStoreFactory.class);
        RedisJobStoreFactory store = (RedisJobStoreFactory) config.getStore();
        assertThat(store.getUri()).isNull();
        assertThat(store.getEmbedded().getPort()).isEqualTo(6390);
        assertThat(store.getEmbedded().isAppendOnly()).isTrue();
        assertThat(store.getEmbedded().getDataDir()).isEqualTo("./data/redis");

        assertThat(config.getArchive()).isInstanceOfSatisfying(MongoJobArchiveFactory.class, archive -> {
            assertThat(archive.getUri()).isNull();
            assertThat(archive.getEmbedded().getPort()).isEqualTo(27027);
            assertThat(archive.getEmbedded().getDataDir()).isEqualTo("./data/mongo");
        });

        String secret = System.getenv().getOrDefault("DELAYQ_SIGNING_SECRET", "dev-secret");
        assertThat(config.getDelivery().getSigningSecret()).isEqualTo(secret);
        // the shipped configuration turns the circuit breaker on, with the documented defaults
        assertThat(config.getDelivery().getBreaker().policy())
                .isEqualTo(new BreakerPolicy(true, 10, 5_000, 300_000, 20));
        String token = System.getenv().getOrDefault("DELAYQ_TOKEN", "dev-token");
        assertThat(config.getAuth().getTokens()).hasSize(2);
        assertThat(config.getAuth().getTokens().get(0)).satisfies(t -> {
            assertThat(t.getToken()).isEqualTo(token);
            assertThat(t.getRoles()).containsExactlyInAnyOrder("producer", "consumer", "admin");
        });
        String viewer = System.getenv().getOrDefault("DELAYQ_VIEWER_TOKEN", "dev-viewer");
        assertThat(config.getAuth().getTokens().get(1)).satisfies(t -> {
            assertThat(t.getToken()).isEqualTo(viewer);
            assertThat(t.getRoles()).containsExactly("viewer");
        });

        assertThat(config.getLimits().getMaxPayloadBytes().toBytes()).isEqualTo(64 * 1024);
        assertThat(config.getLimits().jobRules().maxDelayMs()).isEqualTo(365L * 24 * 3600 * 1000);
        DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
        assertThat(server.getApplicationConnectors()).singleElement().satisfies(c ->
                assertThat(((HttpConnectorFactory) c).getBindHost()).isEqualTo("127.0.0.1"));
        assertThat(server.getAdminConnectors()).singleElement().satisfies(c ->
                assertThat(((HttpConnectorFactory) c).getBindHost()).isEqualTo("127.0.0.1"));
    }

    @Test
    void defaultsNeedOnlyASigningSecret() throws Exception {
        DelayqConfiguration config = parse("delivery: {signingSecret: s}\n");

        assertThat(config.getStore()).isInstanceOf(RedisJobStoreFactory.class);
        assertThat(config.getLimits().getMaxBatchSize()).isEqualTo(1000);
        assertThat(config.getLimits().getMaxAttempts()).isEqualTo(100);
        assertThat(config.getAuth().getTokens()).isEmpty();
        assertThat(config.getDelivery().getBreaker().policy())
                .as("off in code, so an old configuration keeps its behaviour")
                .isEqualTo(new BreakerPolicy(false, 10, 5_000, 300_000, 20));
    }

    /** The PostgreSQL store is in the service jar: a {@code type:} line and its {@code database} block select it. */
    @Test
    void thePostgresStoreIsSelectedByType() throws Exception {
        DelayqConfiguration config = parse("""
                store:
                  type: postgres
                  database:
                    url: jdbc:postgresql://127.0.0.1:5432/delayq
                    user: delayq
                    password: secret
                delivery: {signingSecret: s}
                """);

        assertThat(config.getStore()).isInstanceOfSatisfying(PostgresJobStoreFactory.class, store -> {
            assertThat(store.getDatabase().getUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/delayq");
            assertThat(store.getDatabase().getUser()).isEqualTo("delayq");
            assertThat(store.getDatabase().getPassword()).isEqualTo("secret");
        });
    }

    /** PostgreSQL alone: without an archive block the archive follows the store, on its very database settings. */
    @Test
    void aPostgresStoreWithoutAnArchiveBlockGetsThePostgresArchiveOnItsDatabase() throws Exception {
        DelayqConfiguration config = parse("""
                store:
                  type: postgres
                  database: {url: 'jdbc:postgresql://127.0.0.1:5432/delayq', user: delayq, password: secret}
                delivery: {signingSecret: s}
                """);

        PostgresJobStoreFactory store = (PostgresJobStoreFactory) config.getStore();
        assertThat(config.getArchive()).isInstanceOfSatisfying(PostgresJobArchiveFactory.class,
                archive -> assertThat(archive.getDatabase()).as("one block, one pool").isSameAs(store.getDatabase()));
    }

    @Test
    void anArchiveOfItsOwnKeepsItsOwnDatabase() throws Exception {
        DelayqConfiguration config = parse("""
                store:
                  type: postgres
                  database: {url: 'jdbc:postgresql://127.0.0.1:5432/delayq', user: delayq, password: secret}
                archive:
                  type: postgres
                  database: {url: 'jdbc:postgresql://10.0.0.9:5432/archive', user: archivist, password: other}
                delivery: {signingSecret: s}
                """);

        assertThat(config.getArchive()).isInstanceOfSatisfying(PostgresJobArchiveFactory.class,
                archive -> assertThat(archive.getDatabase().getUrl()).isEqualTo("jdbc:postgresql://10.0.0.9:5432/archive"));
    }

    @Test
    void aRedisStoreStillGetsTheEmbeddedMongoArchive() throws Exception {
        assertThat(parse("delivery: {signingSecret: s}\n").getArchive()).isInstanceOf(MongoJobArchiveFactory.class);
    }

    @Test
    void aPostgresArchiveWithoutADatabaseBesideARedisStoreIsRefusedWithTheFieldNamed() {
        assertThatThrownBy(() -> parse("archive: {type: postgres}\ndelivery: {signingSecret: s}\n"))
                .hasMessageContaining("archive.database");
    }

    @Test
    void badValuesAreRefusedWithTheFieldNamed() {
        assertThatThrownBy(() -> parse("delivery: {signingSecret: s}\nlimits: {maxBatchSize: 0}\n"))
                .isInstanceOf(ConfigurationValidationException.class).hasMessageContaining("limits.maxBatchSize");
        assertThatThrownBy(() -> parse("delivery: {signingSecret: s}\nauth: {tokens: [{name: x, token: t, roles: [root]}]}\n"))
                .isInstanceOf(ConfigurationValidationException.class).hasMessageContaining("roles must be among");
        assertThatThrownBy(() -> parse("delivery: {signingSecret: s}\nauth: {tokens: [{name: x, token: 'sha256:abc', roles: [admin]}]}\n"))
                .isInstanceOf(ConfigurationValidationException.class).hasMessageContaining("64 hex digits");
        assertThatThrownBy(() -> parse("delivery: {signingSecret: s}\nlimits: {maxPayload: 1KiB}\n"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("maxPayload");
        assertThatThrownBy(() -> parse("store: {type: nosuchstore}\ndelivery: {signingSecret: s}\n"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("nosuchstore");
        assertThatThrownBy(() -> parse("delivery: {signingSecret: s, breaker: {failureThreshold: 0}}\n"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("delivery.breaker.failureThreshold");
        assertThatThrownBy(() -> parse("delivery: {signingSecret: s, breaker: {probeInterval: 1m, maxProbeInterval: 10s}}\n"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("maxProbeInterval must not be shorter than probeInterval");
    }

    /** A token of a tenant that tenants: does not declare (a typo) would see nothing, or later another's topics. */
    @Test
    void aTokensTenantMustBeDeclared() throws Exception {
        String tenants = "tenants: [{name: billing, topics: ['billing.*']}]\n";
        assertThatThrownBy(() -> parse("delivery: {signingSecret: s}\n" + tenants
                + "auth: {tokens: [{name: x, token: t, roles: [producer], tenant: biling}]}\n"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("token 'x' names tenant 'biling'").hasMessageContaining("declared: [billing]");
        DelayqConfiguration ok = parse("delivery: {signingSecret: s}\n" + tenants
                + "auth: {tokens: [{name: x, token: t, roles: [producer], tenant: billing},"
                + " {name: ops, token: u, roles: [admin]}]}\n");
        assertThat(ok.getAuth().getTokens()).hasSize(2);
        assertThat(TokenTenants.unknown(ok.getAuth().getTokens(), java.util.Set.of("other")))
                .contains("token 'x' names tenant 'billing'").doesNotContain("'ops'");
    }

    /** The default backoff is held to the rules of a job's: bounds the API enforces cannot be skipped by configuration. */
    @Test
    void aDefaultBackoffThatMakesNoSenseIsRefusedWithItsBounds() {
        for (String backoff : java.util.List.of("{type: exponential, initial: 0s, multiplier: 2.0, max: 1h}",
                "{type: exponential, initial: 1s, multiplier: 1.7e308, max: 1h}",
                "{type: exponential, initial: 1s, multiplier: 2.0, max: 400d}",
                "{type: schedule, delays: [1s, 400d]}")) {
            assertThatThrownBy(() -> parse("delivery: {signingSecret: s, defaultBackoff: " + backoff + "}\n"))
                    .as(backoff).isInstanceOf(ConfigurationValidationException.class)
                    .hasMessageContaining("delivery.defaultBackoff").hasMessageContaining("1.0 to 10.0")
                    .hasMessageContaining("at least 1ms");
        }
    }

    private DelayqConfiguration parse(String yaml) throws Exception {
        return factory.build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "inline.yml");
    }

}
