package io.delayq.redis;

import io.delayq.core.testing.Await;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** A three-master Redis Cluster of embedded servers, for tests; started once per JVM, stopped at exit. */
final class EmbeddedCluster {
    private static final int SLOTS = 16384;
    private static EmbeddedCluster shared;

    private final List<EmbeddedRedis> nodes = new ArrayList<>();

    private EmbeddedCluster() {
    }

    static synchronized EmbeddedCluster shared() {
        if (shared == null) {
            shared = start(3);
        }
        return shared;
    }

    Set<HostAndPort> nodes() {
        Set<HostAndPort> out = new LinkedHashSet<>();
        nodes.forEach(n -> out.add(new HostAndPort("127.0.0.1", n.port())));
        return out;
    }

    UnifiedJedis client() {
        return RedisClusterClient.builder().nodes(nodes()).build();
    }

    private static EmbeddedCluster start(int size) {
        EmbeddedCluster cluster = new EmbeddedCluster();
        try {
            Path dir = Files.createTempDirectory("delayq-cluster");
            for (int i = 0; i < size; i++) {
                int port = portWithFreeBus();
                cluster.nodes.add(EmbeddedRedis.start(port, dir.resolve("n" + i), false, "no",
                        List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf",
                                "--cluster-node-timeout", "5000")));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the cluster's directory", e);
        }
        int per = SLOTS / size;
        for (int i = 0; i < size; i++) {
            try (Jedis node = new Jedis("127.0.0.1", cluster.nodes.get(i).port())) {
                int from = i * per;
                int to = i == size - 1 ? SLOTS - 1 : from + per - 1;
                int[] slots = new int[to - from + 1];
                for (int s = from; s <= to; s++) {
                    slots[s - from] = s;
                }
                node.clusterAddSlots(slots);
                if (i > 0) {
                    node.clusterMeet("127.0.0.1", cluster.nodes.get(0).port());
                }
            }
        }
        long deadline = System.currentTimeMillis() + 20_000;
        for (EmbeddedRedis n : cluster.nodes) {
            try (Jedis node = new Jedis("127.0.0.1", n.port())) {
                while (!node.clusterInfo().contains("cluster_state:ok")
                        || !node.clusterInfo().contains("cluster_known_nodes:" + size)) {
                    if (System.currentTimeMillis() > deadline) {
                        throw new IllegalStateException("the embedded cluster did not form: " + node.clusterInfo());
                    }
                    Await.sleep(50);
                }
            }
        }
        return cluster;
    }

    /** A port whose cluster bus port (port + 10000) is free too. */
    private static int portWithFreeBus() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 45_000);
            if (free(port) && free(port + 10_000)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair for a cluster node");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
