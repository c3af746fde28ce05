package io.delayq.bench;

import io.delayq.core.JobStore;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.RedisStoreOptions;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One configuration of the cluster scaling part ({@link ClusterScale}) as a {@link Backend}: the bench's standalone
 * Redis or a {@link BenchCluster}, with the store options every configuration shares (P partitions per topic) and its
 * own {@code minReplicas}. Runs go to the SCALE-… tables under this configuration's label. Cost is summed over the
 * nodes: Redis CPU over every node (replicas applying the stream included: on one machine they share its cores), commands
 * over the masters (a replica's replicated commands are not the client's calls).
 */
final class ScaleBackend implements Backend {
    static final String PREFIX = "SCALE-";
    private final String label;
    private final String uri;
    private final boolean cluster;
    private final List<BenchRedis> masters;
    private final List<BenchRedis> nodes;
    private final int partitions;
    private final int minReplicas;

    private ScaleBackend(String label, String uri, boolean cluster, List<BenchRedis> masters, List<BenchRedis> nodes,
                         int partitions, int minReplicas) {
        this.label = label;
        this.uri = uri;
        this.cluster = cluster;
        this.masters = masters;
        this.nodes = nodes;
        this.partitions = partitions;
        this.minReplicas = minReplicas;
    }

    static ScaleBackend standalone(BenchRedis redis, int partitions) {
        return new ScaleBackend("standalone", redis.uri(), false, List.of(redis), List.of(redis), partitions, 0);
    }

    static ScaleBackend cluster(BenchCluster c, int partitions, int minReplicas) {
        return new ScaleBackend("cluster, " + c.shape() + (c.all().size() > c.masters().size()
                ? ", minReplicas " + minReplicas : ""), c.uri(), true, c.masters(), c.all(), partitions, minReplicas);
    }

    /** The row label of this configuration in the SCALE-… tables. */
    String label() {
        return label;
    }

    /** delayq's store on this configuration: P partitions for every topic, this configuration's minReplicas. */
    JobStore connect(String where) {
        RedisStoreOptions options = RedisStoreOptions.defaults().withPoolSize(32).withPartitions(partitions, Map.of());
        if (minReplicas > 0) {
            options = options.withMinReplicas(minReplicas, Duration.ofSeconds(1));
        }
        if (!cluster) {
            return RedisJobStore.connect(where, options);
        }
        Set<HostAndPort> seeds = new LinkedHashSet<>();
        for (String node : where.substring("redis://".length()).split(",")) {
            seeds.add(HostAndPort.from(node));
        }
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(32);
        pool.setMaxIdle(32);
        return new RedisJobStore(RedisClusterClient.builder().nodes(seeds).poolConfig(pool).build(), options, true);
    }

    @Override
    public String tablePrefix() {
        return PREFIX;
    }

    @Override
    public String fresh(String owner) {
        masters.forEach(BenchRedis::reset); // replicas follow their master's FLUSHALL
        nodes.forEach(BenchRedis::resetStats);
        return uri;
    }

    @Override
    public String serviceStoreYaml(String where) {
        return String.join("\n", "store:", "  type: redis", "  uri: " + where, "  cluster: " + cluster,
                "  poolSize: 64", "  partitions: " + partitions, "  minReplicas: " + minReplicas);
    }

    @Override
    public long storedBytes() {
        return masters.stream().mapToLong(BenchRedis::usedMemory).sum();
    }

    @Override
    public Mark mark() {
        nodes.forEach(BenchRedis::resetStats);
        List<RedisInfo> before = nodes.stream().map(BenchRedis::info).toList();
        return () -> {
            double user = 0;
            double sys = 0;
            long calls = 0;
            Map<String, long[]> commands = new LinkedHashMap<>();
            for (int i = 0; i < nodes.size(); i++) {
                RedisInfo.Cost c = nodes.get(i).info().costSince(before.get(i));
                user += c.userMs();
                sys += c.sysMs();
                if (masters.contains(nodes.get(i))) {
                    calls += c.calls();
                    c.commands().forEach((k, v) -> {
                        long[] acc = commands.computeIfAbsent(k, x -> new long[2]);
                        acc[0] += v[0];
                        acc[1] += v[1];
                    });
                }
            }
            return new RedisInfo.Cost(user, sys, calls, commands);
        };
    }

    @Override
    public void clear() {
        masters.forEach(BenchRedis::flushAll);
    }
}
