package io.delayq.redis;

import io.delayq.redis.testing.EmbeddedCluster;
import io.delayq.core.Delivery;
import io.delayq.core.EnqueueResult;
import io.delayq.core.JobRef;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.testing.Await;
import io.delayq.redis.RedisKeys.Partition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cluster of three masters with a replica each, formed by the test (no redis-cli), cluster-node-timeout 1 s:
 * partitions spread over the masters, {@code minReplicas} costs one WAIT per node, and a master paused then killed
 * loses no acknowledged job while the store comes back by itself. The failover runs last: it changes the cluster.
 */
@Tag("slow") // Redis Cluster failovers (CONTRIBUTING.md: the fast run leaves it out)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisReplicatedClusterTest {
    private static final Logger LOG = LoggerFactory.getLogger(RedisReplicatedClusterTest.class);
    @AutoClose
    private static final EmbeddedCluster cluster = EmbeddedCluster.start(3, 1, 1000);

    private static RedisJobStore store(int partitions, int minReplicas) {
        RedisStoreOptions options = RedisStoreOptions.defaults().withPartitions(partitions, Map.of());
        if (minReplicas > 0) {
            options = options.withMinReplicas(minReplicas, Duration.ofMillis(500));
        }
        return new RedisJobStore(cluster.client(), options, true);
    }

    /** The masters (by port) holding a partition's keys, asked of each master itself. */
    private static Map<Integer, Integer> partitionsPerMaster(Partition[] ps) {
        Map<Integer, Integer> count = new HashMap<>();
        for (EmbeddedRedis master : cluster.masters()) {
            try (Jedis node = new Jedis("127.0.0.1", master.port())) {
                for (Partition p : ps) {
                    // counts only the keys this node holds (EXISTS would answer MOVED for another node's slot)
                    if (node.clusterCountKeysInSlot(redis.clients.jedis.util.JedisClusterCRC16.getSlot(p.jobs())) > 0) {
                        count.merge(master.port(), 1, Integer::sum);
                    }
                }
            }
        }
        return count;
    }

    @Test
    @Order(1)
    void aTopicOfEightPartitionsHasKeysOnEveryMasterEvenly() {
        // a name whose first-layout tags {topic#p} happen to crowd the masters: the spread layout must not
        String topic = "spread-orders";
        int[] legacy = new int[3];
        for (int p = 0; p < 8; p++) {
            legacy[cluster.masters().indexOf(RedisFixtures.masterOf(cluster, Partition.of(topic, p).jobs()))]++;
        }
        assertThat(java.util.Arrays.stream(legacy).allMatch(n -> n >= 2 && n <= 3))
                .as("the first layout of this name is uneven (%s), so this test tells the layouts apart",
                        java.util.Arrays.toString(legacy)).isFalse();
        try (RedisJobStore store = store(8, 0)) {
            List<NewJob> jobs = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                jobs.add(NewJob.delayed(topic, "j" + i, "{}", 60_000, 3));
            }
            store.enqueue(jobs);
            Partition[] ps = store.partitions(topic);
            Map<Integer, Integer> perMaster = partitionsPerMaster(ps);
            LOG.info("8 partitions over 3 masters: {}", perMaster);
            assertThat(perMaster).hasSize(3);
            assertThat(perMaster.values()).allSatisfy(n -> assertThat(n).isBetween(2, 3));
            assertThat(perMaster.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(8);
            assertThat(store.stats(topic).scheduled()).isEqualTo(400);
        }
    }

    @Test
    @Order(2)
    void minReplicasCostsOneWaitPerNodeNotPerJob() {
        String topic = "wait-" + UUID.randomUUID();
        try (RedisJobStore store = store(8, 1)) {
            store.enqueue(NewJob.delayed(topic, "warm", "{}", 60_000, 3)); // records the topic
            long before = waitCalls();
            List<NewJob> jobs = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                jobs.add(NewJob.delayed(topic, "j" + i, "{}", 0, 3));
            }
            List<EnqueueResult> results = store.enqueue(jobs);
            assertThat(results).allSatisfy(r -> assertThat(r.created()).isTrue());
            assertThat(waitCalls() - before).as("one WAIT per master touched by 8 partitions").isEqualTo(3);

            List<Lease> leases = store.reserve(topic, Delivery.PULL, 1_000, 60_000).leases();
            before = waitCalls();
            store.ack(leases.stream().map(LeaseRef::of).toList());
            assertThat(waitCalls() - before).isEqualTo(3);
        }
        LOG.info("enqueue of 10,000 jobs in batches of 500 on 3 masters with a replica each: minReplicas 0 {} jobs/s,"
                + " minReplicas 1 {} jobs/s", throughput(0), throughput(1));
    }

    private static long throughput(int minReplicas) {
        String topic = "cost-" + minReplicas + "-" + UUID.randomUUID();
        try (RedisJobStore store = store(8, minReplicas)) {
            store.enqueue(NewJob.delayed(topic, "warm", "{}", 60_000, 3));
            long started = System.nanoTime();
            for (int b = 0; b < 20; b++) {
                List<NewJob> jobs = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    jobs.add(NewJob.delayed(topic, b + "-" + i, "{\"order\":7,\"pad\":\"" + "x".repeat(180) + "\"}",
                            60_000, 3));
                }
                store.enqueue(jobs);
            }
            return Math.round(10_000 / ((System.nanoTime() - started) / 1e9));
        }
    }

    /** WAIT calls served by all nodes so far (INFO commandstats). */
    private static long waitCalls() {
        long total = 0;
        for (EmbeddedRedis master : cluster.masters()) {
            try (Jedis node = new Jedis("127.0.0.1", master.port())) {
                for (String line : node.info("commandstats").split("\r\n")) {
                    if (line.startsWith("cmdstat_wait:")) {
                        total += Long.parseLong(line.substring("cmdstat_wait:calls=".length(), line.indexOf(',')));
                    }
                }
            }
        }
        return total;
    }

    @Test
    @Order(3)
    void aReplicaThatDoesNotAnswerMakesWritesUnavailableWithinTheTimeout() throws Exception {
        String topic = "lag-" + UUID.randomUUID();
        try (RedisJobStore store = store(1, 1)) {
            store.enqueue(NewJob.delayed(topic, "first", "{}", 0, 3));
            EmbeddedRedis master = RedisFixtures.masterOf(cluster, store.partitions(topic)[0].jobs());
            EmbeddedRedis replica = cluster.replicaOf(master);
            signal("STOP", replica);
            try {
                long started = System.nanoTime();
                try {
                    store.enqueue(NewJob.delayed(topic, "second", "{}", 0, 3));
                    throw new AssertionError("the enqueue was acknowledged without its replica");
                } catch (StoreException e) {
                    assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE);
                    assertThat(e.getMessage()).contains("reached 0 of 1 replica(s) within 500 ms");
                }
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
            } finally {
                signal("CONT", replica);
            }
        }
    }

    @Test
    @Order(4)
    void aMasterPausedThenKilledLosesNoAcknowledgedJobAndTheStoreComesBack() throws Exception {
        String topic = "failover-" + UUID.randomUUID();
        try (RedisJobStore store = store(8, 1)) {
            store.enqueue(NewJob.delayed(topic, "warm", "{}", 60_000, 3));
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            List<Throwable> wrong = new CopyOnWriteArrayList<>();
            AtomicLong unavailable = new AtomicLong();
            AtomicLong longestCallMs = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> producers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int producer = t;
                Thread thread = new Thread(() -> {
                    for (int b = 0; !stop.get(); b++) {
                        List<NewJob> jobs = new ArrayList<>();
                        for (int i = 0; i < 20; i++) {
                            jobs.add(NewJob.delayed(topic, producer + "-" + b + "-" + i, "{}", 60_000, 3));
                        }
                        long started = System.nanoTime();
                        try {
                            for (EnqueueResult r : store.enqueue(jobs)) {
                                acknowledged.add(r.job().id());
                            }
                        } catch (StoreException e) {
                            if (e.status() != StoreStatus.UNAVAILABLE) {
                                wrong.add(e);
                            }
                            unavailable.incrementAndGet();
                            Await.sleep(20);
                        } catch (Throwable e) {
                            wrong.add(e);
                        }
                        longestCallMs.accumulateAndGet((System.nanoTime() - started) / 1_000_000, Math::max);
                    }
                }, "producer-" + t);
                thread.start();
                producers.add(thread);
            }
            Await.sleep(500);
            EmbeddedRedis master = cluster.masters().get(1);
            EmbeddedRedis replica = cluster.replicaOf(master);
            int before = acknowledged.size();
            signal("STOP", master);
            Await.sleep(1_500);
            master.kill();
            long killed = System.nanoTime();
            // the replica takes over at once (a TAKEOVER needs no vote of the dead master)
            try (Jedis node = new Jedis("127.0.0.1", replica.port())) {
                node.clusterFailover(redis.clients.jedis.args.ClusterFailoverOption.TAKEOVER);
            }
            // the promoted replica has no replica of its own, so minReplicas 1 cannot be met on its slots until the old
            // master is back (as its replica): restarted, as a supervisor would (2 replicas a master avoid the wait)
            cluster.restart(master);
            String probeTopic = "probe-" + UUID.randomUUID();
            long resumedMs = -1;
            String lastError = "";
            for (int i = 0; resumedMs < 0 && System.nanoTime() - killed < 15_000_000_000L; i++) {
                try {
                    List<NewJob> probe = new ArrayList<>();
                    for (int j = 0; j < 16; j++) {
                        probe.add(NewJob.delayed(probeTopic, i + "-" + j, "{}", 0, 3));
                    }
                    store.enqueue(probe);
                    if (store.reserve(probeTopic, Delivery.PULL, 100, 60_000).leases().size() >= 16) {
                        resumedMs = (System.nanoTime() - killed) / 1_000_000;
                    }
                } catch (StoreException e) {
                    assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE);
                    lastError = e.getMessage();
                    Await.sleep(100);
                }
            }
            Await.sleep(500);
            stop.set(true);
            for (Thread t : producers) {
                t.join(30_000);
            }
            LOG.info("failover: {} jobs acknowledged ({} before the pause), {} calls answered UNAVAILABLE, longest call"
                    + " {} ms, enqueue+reserve on every partition again {} ms after the kill", acknowledged.size(),
                    before, unavailable.get(), longestCallMs.get(), resumedMs);
            assertThat(wrong).as("producers only ever see UNAVAILABLE").isEmpty();
            assertThat(resumedMs).as("store serving again within 10 s of the kill (last error: %s)", lastError)
                    .isBetween(0L, 10_000L);
            assertThat(longestCallMs.get()).as("no call hangs").isLessThan(15_000);
            assertThat(unavailable.get()).as("the paused master was noticed").isPositive();
            assertThat(acknowledged.size()).isGreaterThan(before);
            List<String> lost = new ArrayList<>();
            for (String id : acknowledged) {
                if (store.find(new JobRef(topic, id)).isEmpty()) {
                    lost.add(id);
                }
            }
            assertThat(lost).as("acknowledged jobs lost in the failover").isEmpty();
        }
    }

    private static void signal(String signal, EmbeddedRedis node) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(node.pid())).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
    }
}
