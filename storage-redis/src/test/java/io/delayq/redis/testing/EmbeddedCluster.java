package io.delayq.redis.testing;

import io.delayq.core.testing.Await;
import io.delayq.redis.EmbeddedRedis;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A Redis Cluster of embedded servers, for tests: formed with CLUSTER ADDSLOTS / MEET / REPLICATE through Jedis (no
 * redis-cli), masters owning equal contiguous slot ranges. {@link #shared()} is three masters for the whole JVM;
 * {@link #start(int, int, int)} makes one of a test's own (e.g. with replicas, to fail over).
 *
 * <p>Every node gets its own config epoch before the nodes meet (masters 1…M, replicas above them), and the cluster is
 * returned once every node knows the highest: what {@code redis-cli --cluster create} does. Without it the nodes all
 * start at epoch 0 and settle their collisions over gossip, and a replica could end up with its master's epoch; a
 * {@code CLUSTER FAILOVER TAKEOVER} of that replica (a new epoch without the others' consent, which Redis skips when
 * the replica already holds the highest) then claimed the slots with an epoch no greater than that of the paused
 * master, so every other node kept the paused master as their owner, and so did every client's slot map, for as long
 * as that master stayed paused (the one-in-thirty failure of RedisClusterSubscriptionFailoverTest).
 */
public final class EmbeddedCluster implements AutoCloseable {
    private static final int SLOTS = 16384;
    private static EmbeddedCluster shared;

    private final List<EmbeddedRedis> nodes = new ArrayList<>();
    private final List<EmbeddedRedis> masters = new ArrayList<>();
    private final Map<EmbeddedRedis, List<EmbeddedRedis>> replicasOf = new LinkedHashMap<>();
    private final Map<EmbeddedRedis, Path> dirOf = new HashMap<>();
    private int nodeTimeoutMs;

    private EmbeddedCluster() {
    }

    public static synchronized EmbeddedCluster shared() {
        if (shared == null) {
            shared = start(3, 0, 5000);
        }
        return shared;
    }

    public Set<HostAndPort> nodes() {
        Set<HostAndPort> out = new LinkedHashSet<>();
        nodes.forEach(n -> out.add(new HostAndPort("127.0.0.1", n.port())));
        return out;
    }

    public UnifiedJedis client() {
        return RedisClusterClient.builder().nodes(nodes()).build();
    }

    /** The masters as formed (a failover does not change this list; ask the nodes for their role). */
    public List<EmbeddedRedis> masters() {
        return List.copyOf(masters);
    }

    /** The replica formed for {@code master} (the first, when several). */
    public EmbeddedRedis replicaOf(EmbeddedRedis master) {
        List<EmbeddedRedis> replicas = replicasOf.get(master);
        return replicas == null ? null : replicas.get(0);
    }

    /** Every replica formed for {@code master}. */
    public List<EmbeddedRedis> replicasOf(EmbeddedRedis master) {
        return List.copyOf(replicasOf.getOrDefault(master, List.of()));
    }

    @Override
    public void close() {
        nodes.forEach(n -> {
            try {
                n.close();
            } catch (RuntimeException e) {
                // killed by the test already
            }
        });
    }

    /**
     * @param masterCount      masters, each owning an equal contiguous slot range
     * @param replicasPerMaster replicas of each master
     * @param nodeTimeoutMs    cluster-node-timeout: how long a node may not answer before the others fail it over
     */
    public static EmbeddedCluster start(int masterCount, int replicasPerMaster, int nodeTimeoutMs) {
        EmbeddedCluster cluster = new EmbeddedCluster();
        cluster.nodeTimeoutMs = nodeTimeoutMs;
        int size = masterCount * (1 + replicasPerMaster);
        try {
            Path dir = Files.createTempDirectory("delayq-cluster");
            for (int i = 0; i < size; i++) {
                cluster.nodes.add(cluster.launch(portWithFreeBus(), dir.resolve("n" + i)));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the cluster's directory", e);
        }
        // distinct config epochs before the nodes meet, as redis-cli --cluster create assigns them (see the class doc)
        for (int i = 0; i < size; i++) {
            try (Jedis node = new Jedis("127.0.0.1", cluster.nodes.get(i).port())) {
                node.clusterSetConfigEpoch(i + 1);
            }
        }
        int first = cluster.nodes.get(0).port();
        int per = SLOTS / masterCount;
        for (int i = 0; i < masterCount; i++) {
            EmbeddedRedis master = cluster.nodes.get(i);
            cluster.masters.add(master);
            try (Jedis node = new Jedis("127.0.0.1", master.port())) {
                int from = i * per;
                int to = i == masterCount - 1 ? SLOTS - 1 : from + per - 1;
                int[] slots = new int[to - from + 1];
                for (int s = from; s <= to; s++) {
                    slots[s - from] = s;
                }
                node.clusterAddSlots(slots);
                if (i > 0) {
                    node.clusterMeet("127.0.0.1", first);
                }
            }
        }
        for (int i = masterCount; i < size; i++) {
            EmbeddedRedis replica = cluster.nodes.get(i);
            EmbeddedRedis master = cluster.masters.get((i - masterCount) % masterCount);
            cluster.replicasOf.computeIfAbsent(master, m -> new ArrayList<>()).add(replica);
            try (Jedis node = new Jedis("127.0.0.1", replica.port());
                 Jedis m = new Jedis("127.0.0.1", master.port())) {
                node.clusterMeet("127.0.0.1", first);
                String masterId = m.clusterMyId();
                // REPLICATE needs the master in this node's table: wait for the gossip that brings it
                long deadline = System.currentTimeMillis() + 20_000;
                while (!node.clusterNodes().contains(masterId)) {
                    if (System.currentTimeMillis() > deadline) {
                        throw new IllegalStateException("replica on " + replica.port() + " never learned of master "
                                + master.port());
                    }
                    Await.sleep(50);
                }
                node.clusterReplicate(masterId);
            }
        }
        long deadline = System.currentTimeMillis() + 30_000;
        for (EmbeddedRedis n : cluster.nodes) {
            try (Jedis node = new Jedis("127.0.0.1", n.port())) {
                while (!node.clusterInfo().contains("cluster_state:ok")
                        || !node.clusterInfo().contains("cluster_known_nodes:" + size)
                        || !node.clusterInfo().contains("cluster_current_epoch:" + size + "\r\n")
                        || !cluster.masters.contains(n) && !node.info("replication").contains("master_link_status:up")) {
                    if (System.currentTimeMillis() > deadline) {
                        throw new IllegalStateException("the embedded cluster did not form: " + node.clusterInfo()
                                + node.info("replication"));
                    }
                    Await.sleep(50);
                }
            }
        }
        return cluster;
    }

    private EmbeddedRedis launch(int port, Path dir) {
        EmbeddedRedis node = EmbeddedRedis.start(port, dir, false, "no",
                List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf",
                        "--cluster-node-timeout", Integer.toString(nodeTimeoutMs)));
        dirOf.put(node, dir);
        return node;
    }

    /**
     * Starts a node that was killed again, on its port and directory: its cluster config file makes it rejoin with
     * its old identity, and a master that was failed over meanwhile comes back as a replica of the one that replaced
     * it (what a process supervisor restarting it would get).
     */
    public EmbeddedRedis restart(EmbeddedRedis killed) {
        EmbeddedRedis node = launch(killed.port(), dirOf.get(killed));
        nodes.add(node);
        return node;
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
