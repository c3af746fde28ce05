package io.delayq.redis;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.delayq.core.JobStore;
import io.delayq.core.JobStoreFactory;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import redis.clients.jedis.UnifiedJedis;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Configures the Redis {@link JobStore} ({@code store: {type: redis, …}}).
 *
 * <table>
 *   <caption>Configuration</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code uri}</td><td>(none)</td><td>{@code redis://[user:password@]host:port[/db]} or {@code rediss://…};
 *       with {@code cluster: true}, seed nodes separated by commas ({@code redis://h1:7000,h2:7000}). When neither
 *       {@code uri} nor {@code sentinel} is set, an embedded Redis is started (see {@code embedded}).</td></tr>
 *   <tr><td>{@code cluster}</td><td>false</td><td>Connect to a Redis Cluster through the nodes in {@code uri}.</td></tr>
 *   <tr><td>{@code sentinel}</td><td>(none)</td><td>{@code {masterName, nodes: [host:port, …], password, database}}:
 *       find the master through Redis Sentinel.</td></tr>
 *   <tr><td>{@code embedded.port}</td><td>6390</td><td>Port of the embedded Redis (127.0.0.1 only); 0 picks a free one.</td></tr>
 *   <tr><td>{@code embedded.dataDir}</td><td>./data/redis</td><td>Directory of its append-only file.</td></tr>
 *   <tr><td>{@code embedded.appendOnly}</td><td>true</td><td>Keep an append-only file, so jobs survive a restart.</td></tr>
 *   <tr><td>{@code embedded.appendFsync}</td><td>always</td><td>{@code always} (no accepted job is lost),
 *       {@code everysec} (up to 1 s of writes lost on a machine crash) or {@code no}.</td></tr>
 *   <tr><td>{@code partitions}</td><td>1</td><td>Partitions per topic; each is one cluster slot. A topic keeps
 *       the count it was first used with (recorded in Redis under {@code dq:partitions}); a different configured
 *       count is ignored for it, with a warning, so that no job is stranded in a partition nobody reads.</td></tr>
 *   <tr><td>{@code topicPartitions}</td><td>{}</td><td>Per-topic partition counts, e.g. {@code {orders: 8}}.</td></tr>
 *   <tr><td>{@code finishedRetention}</td><td>24 hours</td><td>How long finished jobs stay readable (and keep
 *       their id taken).</td></tr>
 *   <tr><td>{@code historySize}</td><td>100</td><td>Attempts kept in a job's history (the newest). At least the
 *       service's {@code limits.maxAttempts}, so that every attempt of a dead letter is kept.</td></tr>
 *   <tr><td>{@code poolSize}</td><td>32</td><td>Redis connections at most (one is held by the notification
 *       subscriber).</td></tr>
 *   <tr><td>{@code timeout}</td><td>2 seconds</td><td>Connect and socket timeout of one Redis call, in every mode
 *       (the embedded server's client too: every client is built by {@link RedisClients}); on a cluster
 *       also the most one command spends following redirections and retrying a node that does not answer.</td></tr>
 *   <tr><td>{@code minReplicas}</td><td>0</td><td>Replicas every acknowledged write (enqueue, ack, nack, extend,
 *       cancel, reschedule, settings, outbox deletion) must reach before the caller is answered: a {@code WAIT} after
 *       the write, one per node a call touched. Fewer within {@code replicaTimeout} = {@code StoreException}
 *       UNAVAILABLE (503): the write may or may not survive a failover. 0 = answer once the master has it.</td></tr>
 *   <tr><td>{@code replicaTimeout}</td><td>1 second</td><td>How long one such {@code WAIT} may take.</td></tr>
 *   <tr><td>{@code topologyRefresh}</td><td>5 seconds</td><td>(cluster) How often the client rereads the slot map
 *       on its own, besides after MOVED and failed calls.</td></tr>
 * </table>
 *
 * <p>{@link #build} returns a ready store, registers a {@link Managed} that closes it (and stops the embedded
 * server) and a health check named {@code store} that PINGs Redis.
 */
@JsonTypeName("redis")
public class RedisJobStoreFactory implements JobStoreFactory {

    private String uri;

    private boolean cluster;

    @Valid
    private SentinelFactory sentinel;

    @Valid
    @NotNull
    private EmbeddedFactory embedded = new EmbeddedFactory();

    @Min(1)
    @Max(1024)
    private int partitions = 1;

    @NotNull
    private Map<String, @Min(1) @Max(1024) Integer> topicPartitions = new HashMap<>();

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration finishedRetention = Duration.hours(24);

    @Min(1)
    @Max(100)
    private int historySize = RedisStoreOptions.defaults().historySize();

    @Min(2)
    @Max(1024)
    private int poolSize = RedisStoreOptions.defaults().poolSize();

    @NotNull
    @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
    private Duration timeout = Duration.seconds(2);

    @Min(0)
    @Max(16)
    private int minReplicas;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    private Duration replicaTimeout = Duration.seconds(1);

    @NotNull
    @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
    private Duration topologyRefresh = Duration.seconds(5);

    /** The embedded server used when no {@code uri} and no {@code sentinel} is configured. */
    public static class EmbeddedFactory {
        @Min(0)
        @Max(65535)
        private int port = 6390;

        @NotEmpty
        private String dataDir = "./data/redis";

        private boolean appendOnly = true;

        @NotNull
        @Pattern(regexp = "always|everysec|no", message = "must be always, everysec or no")
        private String appendFsync = "always";

        @JsonProperty
        public int getPort() {
            return port;
        }

        @JsonProperty
        public void setPort(int port) {
            this.port = port;
        }

        @JsonProperty
        public String getDataDir() {
            return dataDir;
        }

        @JsonProperty
        public void setDataDir(String dataDir) {
            this.dataDir = dataDir;
        }

        @JsonProperty
        public boolean isAppendOnly() {
            return appendOnly;
        }

        @JsonProperty
        public void setAppendOnly(boolean appendOnly) {
            this.appendOnly = appendOnly;
        }

        @JsonProperty
        public String getAppendFsync() {
            return appendFsync;
        }

        @JsonProperty
        public void setAppendFsync(String appendFsync) {
            this.appendFsync = appendFsync;
        }
    }

    /** Redis Sentinel: the master's name and the sentinels to ask. */
    public static class SentinelFactory {
        @NotEmpty
        private String masterName;

        @NotEmpty
        private List<@Pattern(regexp = "[^:]+:\\d+", message = "must be host:port") String> nodes;

        private String password;

        @Min(0)
        private int database;

        @JsonProperty
        public String getMasterName() {
            return masterName;
        }

        @JsonProperty
        public void setMasterName(String masterName) {
            this.masterName = masterName;
        }

        @JsonProperty
        public List<String> getNodes() {
            return nodes;
        }

        @JsonProperty
        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        @JsonProperty
        public String getPassword() {
            return password;
        }

        @JsonProperty
        public void setPassword(String password) {
            this.password = password;
        }

        @JsonProperty
        public int getDatabase() {
            return database;
        }

        @JsonProperty
        public void setDatabase(int database) {
            this.database = database;
        }
    }

    /** A WAIT is one Redis call: it must end (with its count) before the socket gives up on it. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    @ValidationMethod(message = "replicaTimeout must be shorter than timeout (a WAIT for replicas is one Redis call, and"
            + " the socket timeout would cut it off before it answers)")
    public boolean isReplicaTimeoutWithinTimeout() {
        return replicaTimeout == null || timeout == null || minReplicas == 0
                || replicaTimeout.toMilliseconds() < timeout.toMilliseconds();
    }

    @com.fasterxml.jackson.annotation.JsonIgnore
    @ValidationMethod(message = "uri must start with redis:// or rediss://, and cannot be combined with sentinel; cluster needs a uri")
    public boolean isConnectionValid() {
        if (uri != null && !(uri.startsWith("redis://") || uri.startsWith("rediss://"))) {
            return false;
        }
        if (uri != null && sentinel != null) {
            return false;
        }
        return !cluster || uri != null;
    }

    @com.fasterxml.jackson.annotation.JsonIgnore
    @ValidationMethod(message = "uri must be redis://[user:password@]host[:port][/database] (or rediss://…), with a "
            + "port from 1 to 65535 and a database number; a list of nodes separated by commas needs cluster: true")
    public boolean isStandaloneUriValid() {
        if (cluster || uri == null || !isConnectionValid()) {
            return true; // the other checks speak for these
        }
        try {
            URI parsed = new URI(uri);
            String path = parsed.getPath();
            return parsed.getHost() != null && (parsed.getPort() == -1 || ClusterUri.validPort(parsed.getPort()))
                    && (path == null || path.isEmpty() || path.matches("/\\d{0,9}"));
        } catch (URISyntaxException e) {
            return false;
        }
    }

    @com.fasterxml.jackson.annotation.JsonIgnore
    @ValidationMethod(message = "uri with cluster: true must be one scheme, then the seed nodes as host:port separated "
            + "by commas, e.g. redis://h1:7000,h2:7000 or rediss://user:password@h1:7000,h2:7000 "
            + "(not redis://h1:7000,redis://h2:7000)")
    public boolean isClusterUriValid() {
        if (!cluster || uri == null || !isConnectionValid()) {
            return true; // the other checks speak for these
        }
        try {
            ClusterUri.parse(uri);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @Override
    public JobStore build(LifecycleEnvironment lifecycle, HealthCheckRegistry healthChecks, MetricRegistry metrics) {
        EmbeddedRedis server = null;
        UnifiedJedis client;
        RedisClients.Options connection = new RedisClients.Options(poolSize,
                java.time.Duration.ofMillis(timeout.toMilliseconds()),
                java.time.Duration.ofMillis(topologyRefresh.toMilliseconds()));
        if (uri == null && sentinel == null) {
            server = EmbeddedRedis.start(embedded.port, Path.of(embedded.dataDir), embedded.appendOnly, embedded.appendFsync);
            client = RedisClients.standalone(server.uri(), connection);
        } else if (sentinel != null) {
            client = RedisClients.sentinel(sentinel.masterName, sentinel.nodes, sentinel.password, sentinel.database,
                    connection);
        } else if (cluster) {
            client = RedisClients.cluster(uri, connection);
        } else {
            client = RedisClients.standalone(uri, connection);
        }
        RedisJobStore store;
        try {
            store = new RedisJobStore(client, options(), true);
        } catch (RuntimeException e) {
            client.close();
            if (server != null) {
                server.close();
            }
            throw e;
        }
        if (server != null) {
            store.onClose(server::close);
            server.closedByOwnerAtExit(java.time.Duration.ofSeconds(30)); // the service's own stop still needs it
        }
        lifecycle.manage(new Managed() {
            @Override
            public void stop() {
                store.close();
            }
        });
        healthChecks.register("store", new HealthCheck() {
            @Override
            protected Result check() {
                try {
                    return Result.healthy("Redis answered " + store.ping());
                } catch (RuntimeException e) {
                    return Result.unhealthy("Redis does not answer: " + e.getMessage());
                }
            }
        });
        return store;
    }

    /** The store options this configuration describes. */
    public RedisStoreOptions options() {
        return new RedisStoreOptions(partitions, topicPartitions, java.time.Duration.ofMillis(finishedRetention.toMilliseconds()),
                historySize, poolSize, java.time.Duration.ofSeconds(1), RedisStoreOptions.defaults().trimInterval(),
                minReplicas, java.time.Duration.ofMillis(replicaTimeout.toMilliseconds()));
    }

    // ---------------------------------------------------------------- properties

    @JsonProperty
    public String getUri() {
        return uri;
    }

    @JsonProperty
    public void setUri(String uri) {
        this.uri = uri;
    }

    @JsonProperty
    public boolean isCluster() {
        return cluster;
    }

    @JsonProperty
    public void setCluster(boolean cluster) {
        this.cluster = cluster;
    }

    @JsonProperty
    public SentinelFactory getSentinel() {
        return sentinel;
    }

    @JsonProperty
    public void setSentinel(SentinelFactory sentinel) {
        this.sentinel = sentinel;
    }

    @JsonProperty
    public EmbeddedFactory getEmbedded() {
        return embedded;
    }

    @JsonProperty
    public void setEmbedded(EmbeddedFactory embedded) {
        this.embedded = embedded;
    }

    @JsonProperty
    public int getPartitions() {
        return partitions;
    }

    @JsonProperty
    public void setPartitions(int partitions) {
        this.partitions = partitions;
    }

    @JsonProperty
    public Map<String, Integer> getTopicPartitions() {
        return topicPartitions;
    }

    @JsonProperty
    public void setTopicPartitions(Map<String, Integer> topicPartitions) {
        this.topicPartitions = topicPartitions;
    }

    @JsonProperty
    public Duration getFinishedRetention() {
        return finishedRetention;
    }

    @JsonProperty
    public void setFinishedRetention(Duration finishedRetention) {
        this.finishedRetention = finishedRetention;
    }

    @JsonProperty
    public int getHistorySize() {
        return historySize;
    }

    @JsonProperty
    public void setHistorySize(int historySize) {
        this.historySize = historySize;
    }

    @JsonProperty
    public int getPoolSize() {
        return poolSize;
    }

    @JsonProperty
    public void setPoolSize(int poolSize) {
        this.poolSize = poolSize;
    }

    @JsonProperty
    public Duration getTimeout() {
        return timeout;
    }

    @JsonProperty
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    @JsonProperty
    public int getMinReplicas() {
        return minReplicas;
    }

    @JsonProperty
    public void setMinReplicas(int minReplicas) {
        this.minReplicas = minReplicas;
    }

    @JsonProperty
    public Duration getReplicaTimeout() {
        return replicaTimeout;
    }

    @JsonProperty
    public void setReplicaTimeout(Duration replicaTimeout) {
        this.replicaTimeout = replicaTimeout;
    }

    @JsonProperty
    public Duration getTopologyRefresh() {
        return topologyRefresh;
    }

    @JsonProperty
    public void setTopologyRefresh(Duration topologyRefresh) {
        this.topologyRefresh = topologyRefresh;
    }
}
