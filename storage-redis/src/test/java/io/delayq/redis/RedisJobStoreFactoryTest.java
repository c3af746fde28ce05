package io.delayq.redis;

import io.delayq.redis.testing.EmbeddedCluster;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Delivery;
import io.delayq.core.JobStore;
import io.delayq.core.JobStoreFactory;
import io.delayq.core.NewJob;
import io.delayq.redis.testing.TestRedis;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.DiscoverableSubtypeResolver;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.validation.BaseValidator;
import io.dropwizard.lifecycle.JettyManaged;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import jakarta.validation.Validator;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.util.SafeEncoder;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisJobStoreFactoryTest {
    private final ObjectMapper mapper = Jackson.newObjectMapper();
    private final Validator validator = BaseValidator.newValidator();
    private final YamlConfigurationFactory<JobStoreFactory> factory =
            new YamlConfigurationFactory<>(JobStoreFactory.class, validator, mapper, "dw");

    private JobStoreFactory parse(String resource) throws Exception {
        return factory.build(new ResourceConfigurationSourceProvider(), "factory/" + resource);
    }

    @Test
    void isDiscoverable() {
        assertThat(new DiscoverableSubtypeResolver().getDiscoveredSubtypes()).contains(RedisJobStoreFactory.class);
    }

    @Test
    void readsEveryField() throws Exception {
        RedisJobStoreFactory redis = (RedisJobStoreFactory) parse("redis.yml");
        assertThat(redis.getUri()).isEqualTo("redis://127.0.0.1:6390/2");
        RedisStoreOptions options = redis.options();
        assertThat(options.partitions()).isEqualTo(4);
        assertThat(options.partitionsOf("orders")).isEqualTo(8);
        assertThat(options.partitionsOf("other")).isEqualTo(4);
        assertThat(options.finishedRetention()).isEqualTo(Duration.ofHours(2));
        assertThat(options.historySize()).isEqualTo(5);
        assertThat(options.poolSize()).isEqualTo(8);
        assertThat(redis.getTimeout().toMilliseconds()).isEqualTo(500);
        assertThat(options.minReplicas()).isEqualTo(1);
        assertThat(options.replicaTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(redis.getTopologyRefresh().toMilliseconds()).isEqualTo(2_000);
    }

    @Test
    void refusesAReplicaTimeoutTheSocketTimeoutWouldCutOff() {
        RedisJobStoreFactory redis = new RedisJobStoreFactory();
        redis.setUri("redis://h:6379");
        redis.setMinReplicas(1);
        redis.setReplicaTimeout(io.dropwizard.util.Duration.seconds(2));
        assertThat(validator.validate(redis)).extracting(v -> v.getMessage())
                .anySatisfy(m -> assertThat(m).contains("replicaTimeout must be shorter than timeout"));
        redis.setReplicaTimeout(io.dropwizard.util.Duration.seconds(1));
        assertThat(validator.validate(redis)).isEmpty();
        redis.setMinReplicas(-1);
        assertThat(validator.validate(redis)).isNotEmpty();
    }

    @Test
    void hasUsefulDefaults() throws Exception {
        RedisJobStoreFactory redis = (RedisJobStoreFactory) parse("embedded.yml");
        assertThat(redis.getUri()).isNull();
        assertThat(redis.getPartitions()).isEqualTo(1);
        assertThat(redis.options().finishedRetention()).isEqualTo(Duration.ofHours(24));
        assertThat(redis.options().minReplicas()).isZero();
        assertThat(redis.options().replicaTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(new RedisJobStoreFactory().getEmbedded().getPort()).isEqualTo(6390);
        assertThat(new RedisJobStoreFactory().getEmbedded().getDataDir()).isEqualTo("./data/redis");
        assertThat(new RedisJobStoreFactory().getEmbedded().isAppendOnly()).isTrue();
    }

    @Test
    void refusesZeroPartitions() {
        assertThatThrownBy(() -> parse("bad-partitions.yml"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("partitions");
    }

    @Test
    void refusesANonRedisUri() {
        assertThatThrownBy(() -> parse("bad-uri.yml"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("redis://");
    }

    @Test
    void refusesAClusterSeedListInTheWrongFormNamingTheFieldAndTheRightForm() {
        assertThatThrownBy(() -> parse("bad-cluster-uri.yml"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("uri")
                .hasMessageContaining("redis://h1:7000,h2:7000")
                .hasMessageNotContaining("NumberFormatException");
    }

    @Test
    void checksTheFormOfEveryUri() {
        assertThat(uriProblems("redis://h1:7000,h2:7000", true)).isEmpty();
        assertThat(uriProblems("rediss://user:secret@h1:7000,h2:7001/0", true)).isEmpty();
        assertThat(uriProblems("redis://[::1]:7000,10.0.0.2:7000", true)).isEmpty();
        assertThat(uriProblems("redis://a:1,redis://b:2", true)).isNotEmpty();
        assertThat(uriProblems("redis://a:1,b", true)).isNotEmpty();
        assertThat(uriProblems("redis://a:1,b:99999", true)).isNotEmpty();
        assertThat(uriProblems("redis://a:1,,b:2", true)).isNotEmpty();
        assertThat(uriProblems("redis://h:6379/2", false)).isEmpty();
        assertThat(uriProblems("redis://h", false)).isEmpty();
        assertThat(uriProblems("redis://:pw@h:6379", false)).isEmpty();
        assertThat(uriProblems("redis://h:6379/x", false)).isNotEmpty();
        assertThat(uriProblems("redis://h:port", false)).isNotEmpty();
        assertThat(uriProblems("redis://a:1,b:2", false)).as("a seed list without cluster: true").isNotEmpty();
    }

    private Set<String> uriProblems(String uri, boolean cluster) {
        RedisJobStoreFactory redis = new RedisJobStoreFactory();
        redis.setUri(uri);
        redis.setCluster(cluster);
        return validator.validate(redis).stream().map(v -> v.getPropertyPath() + " " + v.getMessage())
                .collect(Collectors.toSet());
    }

    @Test
    void buildsAReadyStoreWithAHealthCheckAndStopsIt() throws Exception {
        RedisJobStoreFactory redis = new RedisJobStoreFactory();
        redis.setUri(TestRedis.sharedUri());
        LifecycleEnvironment lifecycle = new LifecycleEnvironment(new MetricRegistry());
        HealthCheckRegistry health = new HealthCheckRegistry();
        JobStore store = redis.build(lifecycle, health, new MetricRegistry());
        String topic = "t-" + UUID.randomUUID();
        assertThat(store.enqueue(NewJob.delayed(topic, "f", "{}", 0, 1)).created()).isTrue();
        assertThat(health.runHealthCheck("store").isHealthy()).isTrue();
        assertThat(lifecycle.getManagedObjects()).hasSize(1);
        ((JettyManaged) lifecycle.getManagedObjects().get(0)).getManaged().stop();
    }

    @Test
    void connectsToAClusterThroughItsSeedNodes() throws Exception {
        RedisJobStoreFactory redis = new RedisJobStoreFactory();
        redis.setCluster(true);
        redis.setPartitions(2);
        redis.setUri("redis://" + String.join(",", EmbeddedCluster.shared().nodes().stream().map(Object::toString).toList()));
        LifecycleEnvironment lifecycle = new LifecycleEnvironment(new MetricRegistry());
        HealthCheckRegistry health = new HealthCheckRegistry();
        JobStore store = redis.build(lifecycle, health, new MetricRegistry());
        String topic = "t-" + UUID.randomUUID();
        for (int i = 0; i < 10; i++) {
            assertThat(store.enqueue(NewJob.delayed(topic, "c" + i, "{}", 0, 1)).created()).isTrue();
        }
        assertThat(store.stats(topic).scheduled()).isEqualTo(10);
        assertThat(health.runHealthCheck("store").isHealthy()).isTrue();
        ((JettyManaged) lifecycle.getManagedObjects().get(0)).getManaged().stop();
    }

    @Test
    void startsAndStopsAnEmbeddedServerWhenNoUriIsGiven() throws Exception {
        RedisJobStoreFactory redis = (RedisJobStoreFactory) parse("embedded.yml");
        redis.getEmbedded().setPort(0);
        redis.getEmbedded().setDataDir("target/factory-redis-" + UUID.randomUUID());
        LifecycleEnvironment lifecycle = new LifecycleEnvironment(new MetricRegistry());
        HealthCheckRegistry health = new HealthCheckRegistry();
        JobStore store = redis.build(lifecycle, health, new MetricRegistry());
        String topic = "t-" + UUID.randomUUID();
        store.enqueue(NewJob.delayed(topic, "e", "{}", 0, 1));
        assertThat(store.reserve(topic, Delivery.PULL, 1, 1_000).leases()).hasSizeLessThanOrEqualTo(1);
        HealthCheck.Result result = health.runHealthCheck("store");
        assertThat(result.isHealthy()).isTrue();
        ((JettyManaged) lifecycle.getManagedObjects().get(0)).getManaged().stop();
        assertThat(health.runHealthCheck("store").isHealthy()).isFalse();
    }

    /**
     * The embedded server's client is built as every other (RedisClients): the configured {@code timeout} applies to
     * it. A call the server takes 1.5 s to answer is cut off at 500 ms (the embedded client used to keep Jedis's 2 s).
     */
    @Test
    void theEmbeddedServersClientHonoursTheConfiguredTimeout() throws Exception {
        RedisJobStoreFactory redis = (RedisJobStoreFactory) parse("embedded.yml");
        redis.getEmbedded().setPort(0);
        redis.getEmbedded().setDataDir("target/factory-redis-" + UUID.randomUUID());
        redis.setTimeout(io.dropwizard.util.Duration.milliseconds(500));
        LifecycleEnvironment lifecycle = new LifecycleEnvironment(new MetricRegistry());
        RedisJobStore store = (RedisJobStore) redis.build(lifecycle, new HealthCheckRegistry(), new MetricRegistry());
        try {
            ProtocolCommand debug = () -> SafeEncoder.encode("DEBUG");
            long start = System.nanoTime();
            assertThatThrownBy(() -> store.client().sendCommand(debug, "SLEEP", "1.5"))
                    .isInstanceOf(JedisConnectionException.class)
                    .hasRootCauseInstanceOf(SocketTimeoutException.class);
            assertThat((System.nanoTime() - start) / 1_000_000).as("ms until the call was given up").isLessThan(1_200);
        } finally {
            ((JettyManaged) lifecycle.getManagedObjects().get(0)).getManaged().stop();
        }
    }
}
