package io.delayq.bench;

import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * A Redis Cluster the bench forms itself from the redis-server it uses everywhere ({@link BenchRedis}): masters owning
 * equal contiguous slot ranges (what {@code redis-cli --cluster create} makes), optionally a replica each; formed with
 * {@code CLUSTER ADDSLOTS}, {@code MEET} and {@code REPLICATE} through Jedis, so no redis-cli is needed. No persistence,
 * like the bench's standalone server.
 */
final class BenchCluster implements AutoCloseable {
    private static final int SLOTS = 16384;
    private static final long FORM_TIMEOUT_MS = 30_000;

    private final List<BenchRedis> masters = new ArrayList<>();
    private final List<BenchRedis> replicas = new ArrayList<>();

    private BenchCluster() {
    }

    /** Starts and forms a cluster of {@code masterCount} masters with {@code replicasPerMaster} replicas each. */
    static BenchCluster start(boolean preferPath, int masterCount, int replicasPerMaster) throws Exception {
        if (masterCount < 1 || replicasPerMaster < 0) {
            throw new IllegalArgumentException("a cluster needs at least 1 master and 0 or more replicas per master, not "
                    + masterCount + " and " + replicasPerMaster);
        }
        BenchCluster cluster = new BenchCluster();
        try {
            for (int i = 0; i < masterCount; i++) {
                cluster.masters.add(node(preferPath));
            }
            for (int i = 0; i < masterCount * replicasPerMaster; i++) {
                cluster.replicas.add(node(preferPath));
            }
            cluster.form();
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private static BenchRedis node(boolean preferPath) throws Exception {
        // a node also listens on port + 10000 (the cluster bus): both must be free
        int port = portWithFreeBus();
        return BenchRedis.start(preferPath, port, List.of("--cluster-enabled", "yes",
                "--cluster-config-file", "nodes-" + port + ".conf", "--cluster-node-timeout", "5000"));
    }

    private void form() throws InterruptedException {
        int seed = masters.get(0).port();
        int per = SLOTS / masters.size();
        for (int i = 0; i < masters.size(); i++) {
            int from = i * per;
            int to = i == masters.size() - 1 ? SLOTS - 1 : from + per - 1;
            int[] slots = new int[to - from + 1];
            for (int s = from; s <= to; s++) {
                slots[s - from] = s;
            }
            Jedis m = masters.get(i).admin();
            m.clusterAddSlots(slots);
            if (i > 0) {
                m.clusterMeet("127.0.0.1", seed);
            }
        }
        for (int i = 0; i < replicas.size(); i++) {
            Jedis r = replicas.get(i).admin();
            String masterId = masters.get(i % masters.size()).admin().clusterMyId();
            r.clusterMeet("127.0.0.1", seed);
            // REPLICATE needs the master in this node's table: wait for the gossip that brings it
            awaitTrue(() -> r.clusterNodes().contains(masterId), "replica " + replicas.get(i).port() + " learning of its master");
            r.clusterReplicate(masterId);
        }
        int size = masters.size() + replicas.size();
        for (BenchRedis n : all()) {
            awaitTrue(() -> {
                String info = n.admin().clusterInfo();
                return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + size)
                        && (masters.contains(n) || n.admin().info("replication").contains("master_link_status:up"));
            }, "node " + n.port() + " seeing the cluster formed");
        }
    }

    private interface Check {
        boolean ok();
    }

    private static void awaitTrue(Check check, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + FORM_TIMEOUT_MS;
        while (!check.ok()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("the bench cluster did not form: timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    /** The seed list in the form the service's {@code store.uri} takes with {@code cluster: true}. */
    String uri() {
        return "redis://" + all().stream().map(n -> "127.0.0.1:" + n.port()).collect(Collectors.joining(","));
    }

    List<BenchRedis> masters() {
        return List.copyOf(masters);
    }

    /** Masters, then replicas. */
    List<BenchRedis> all() {
        List<BenchRedis> out = new ArrayList<>(masters);
        out.addAll(replicas);
        return out;
    }

    /** e.g. "3 masters + 1 replica each". */
    String shape() {
        return masters.size() + (masters.size() == 1 ? " master" : " masters")
                + (replicas.isEmpty() ? "" : " + " + replicas.size() / masters.size() + " replica each");
    }

    @Override
    public void close() {
        all().forEach(BenchRedis::close);
    }

    private static int portWithFreeBus() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 45_000);
            if (free(port) && free(port + 10_000)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair (port, port + 10000) for a cluster node");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
