package io.delayq.redis;

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
import io.delayq.redis.testing.EmbeddedCluster;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A resharding while jobs flow: the slot of one of a topic's partitions is moved to another master the way
 * {@code redis-cli --cluster reshard} moves it (CLUSTER SETSLOT IMPORTING / MIGRATING, MIGRATE key by key, SETSLOT
 * NODE), slowly enough that producers and the consumer meet ASK, TRYAGAIN and then MOVED. Nobody tells the store:
 * no acknowledged job is lost, callers see only UNAVAILABLE meanwhile, and the partition works on its new master.
 */
@Tag("slow") // a Redis Cluster resharded under load (CONTRIBUTING.md: the fast run leaves it out)
class RedisClusterReshardingTest {
    private static final Logger LOG = LoggerFactory.getLogger(RedisClusterReshardingTest.class);
    private static final int PARTITIONS = 3;
    @AutoClose
    private static final EmbeddedCluster cluster = EmbeddedCluster.start(3, 0, 1000);

    @Test
    void aPartitionsSlotMovedToAnotherMasterWhileJobsFlowLosesNoJobAndIsFollowedWithoutAnOperator() throws Exception {
        String topic = "reshard-" + UUID.randomUUID();
        RedisStoreOptions options = RedisStoreOptions.defaults().withPartitions(PARTITIONS, Map.of());
        try (RedisJobStore store = new RedisJobStore(cluster.client(), options, true)) {
            store.enqueue(NewJob.delayed(topic, "warm", "{}", 0, 3));
            Partition moved = store.partitions(topic)[0];
            int slot = JedisClusterCRC16.getSlot(moved.jobs());
            EmbeddedRedis source = ownerAsFormed(slot);
            EmbeddedRedis target = cluster.masters().get((cluster.masters().indexOf(source) + 1) % 3);

            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            Set<String> reserved = ConcurrentHashMap.newKeySet();
            List<Throwable> wrong = new CopyOnWriteArrayList<>();
            AtomicLong unavailable = new AtomicLong();
            AtomicLong longestCallMs = new AtomicLong();
            AtomicBoolean stopProducing = new AtomicBoolean();
            AtomicBoolean stopConsuming = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int producer = t;
                // two threads enqueue single jobs (coalesced into shared calls), one enqueues batches of 10
                threads.add(start("producer-" + t, () -> {
                    for (int n = 0; !stopProducing.get(); n++) {
                        List<NewJob> jobs = new ArrayList<>();
                        for (int i = 0; i < (producer == 2 ? 10 : 1); i++) {
                            jobs.add(NewJob.delayed(topic, producer + "-" + n + "-" + i, "{}", 0, 3));
                        }
                        timed(longestCallMs, unavailable, wrong, () -> {
                            List<EnqueueResult> results = jobs.size() == 1 ? List.of(store.enqueue(jobs.get(0)))
                                    : store.enqueue(jobs);
                            results.forEach(r -> acknowledged.add(r.job().id()));
                        });
                        Await.sleep(2);
                    }
                }));
            }
            threads.add(start("consumer", () -> {
                while (!stopConsuming.get()) {
                    timed(longestCallMs, unavailable, wrong, () -> {
                        List<Lease> leases = store.reserve(topic, Delivery.PULL, 50, 60_000).leases();
                        leases.forEach(l -> reserved.add(l.job().id()));
                        if (!leases.isEmpty()) {
                            // a failed ack leaves the job leased: it was handed out, which is what this test counts
                            store.ack(leases.stream().map(LeaseRef::of).toList());
                        }
                    });
                    Await.sleep(5);
                }
            }));

            Await.sleep(500);
            int beforeMove = acknowledged.size();
            long movedAt = migrate(slot, source, target);
            long resumedMs = resumed(store, topic, moved, movedAt);
            Await.sleep(500);
            stopProducing.set(true);
            long drainUntil = System.currentTimeMillis() + 20_000;
            while (!reserved.containsAll(acknowledged) && wrong.isEmpty() && System.currentTimeMillis() < drainUntil) {
                Await.sleep(100);
            }
            stopConsuming.set(true);
            for (Thread t : threads) {
                t.join(10_000);
            }

            LOG.info("resharding of slot {} ({} -> {}): {} jobs acknowledged ({} before the move), {} calls answered"
                    + " UNAVAILABLE, longest call {} ms, the moved partition served again {} ms after SETSLOT NODE",
                    slot, source.port(), target.port(), acknowledged.size(), beforeMove, unavailable.get(),
                    longestCallMs.get(), resumedMs);
            assertThat(wrong).as("callers only ever see UNAVAILABLE").isEmpty();
            Set<String> lost = new HashSet<>(acknowledged);
            lost.removeAll(reserved);
            assertThat(lost).as("acknowledged jobs never handed out (as stored now: %s)", lost.stream().limit(5)
                    .map(id -> id + "=" + store.find(new JobRef(topic, id)).map(j -> j.state().name()).orElse("absent"))
                    .toList()).isEmpty();
            assertThat(acknowledged.size()).as("jobs flowed during and after the move").isGreaterThan(beforeMove);
            assertThat(longestCallMs.get()).as("no call hangs").isLessThan(10_000);
            assertThat(resumedMs).as("the moved partition serves again within 5 s").isBetween(0L, 5_000L);
            try (Jedis src = new Jedis("127.0.0.1", source.port()); Jedis dst = new Jedis("127.0.0.1", target.port())) {
                assertThat(src.clusterCountKeysInSlot(slot)).as("keys left on the old master").isZero();
                assertThat(dst.clusterCountKeysInSlot(slot)).as("keys on the new master").isPositive();
            }
        }
    }

    /**
     * Moves {@code slot} from {@code source} to {@code target} as redis-cli's reshard does, one key per MIGRATE and
     * 200 ms between steps, so that calls meet the slot half moved; returns when SETSLOT NODE was sent (nanoTime).
     */
    private static long migrate(int slot, EmbeddedRedis source, EmbeddedRedis target) {
        try (Jedis src = new Jedis("127.0.0.1", source.port()); Jedis dst = new Jedis("127.0.0.1", target.port())) {
            String sourceId = src.clusterMyId();
            String targetId = dst.clusterMyId();
            dst.clusterSetSlotImporting(slot, sourceId);
            src.clusterSetSlotMigrating(slot, targetId);
            Await.sleep(200);
            int moved = 0;
            List<String> keys;
            while (!(keys = src.clusterGetKeysInSlot(slot, 1)).isEmpty()) {
                src.migrate("127.0.0.1", target.port(), keys.get(0), 0, 5_000);
                moved++;
                Await.sleep(200);
            }
            assertThat(moved).as("keys the partition had on its master").isPositive();
            dst.clusterSetSlotNode(slot, targetId);
            long at = System.nanoTime();
            src.clusterSetSlotNode(slot, targetId);
            for (EmbeddedRedis other : cluster.masters()) {
                if (other != source && other != target) {
                    try (Jedis o = new Jedis("127.0.0.1", other.port())) {
                        o.clusterSetSlotNode(slot, targetId);
                    }
                }
            }
            return at;
        }
    }

    /**
     * Ms from {@code since} until a job enqueued to the moved partition is acknowledged and read back from it (the
     * consumer thread reserves it like any other).
     */
    private static long resumed(RedisJobStore store, String topic, Partition moved, long since) {
        for (int i = 0; System.nanoTime() - since < 10_000_000_000L; i++) {
            String id = idIn(moved, "probe-" + i);
            try {
                store.enqueue(NewJob.delayed(topic, id, "{}", 0, 3));
                if (store.find(new JobRef(topic, id)).isPresent()) {
                    return (System.nanoTime() - since) / 1_000_000;
                }
            } catch (StoreException e) {
                assertThat(e.status()).as(e.getMessage()).isEqualTo(StoreStatus.UNAVAILABLE);
            }
            Await.sleep(50);
        }
        return -1;
    }

    /** An id whose partition (CRC-32 of the id mod P, as the store picks) has the index of {@code moved}. */
    private static String idIn(Partition moved, String prefix) {
        for (int i = 0; ; i++) {
            String id = prefix + "-" + i;
            CRC32 crc = new CRC32();
            crc.update(id.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            if (crc.getValue() % PARTITIONS == moved.index()) {
                return id;
            }
        }
    }

    private static EmbeddedRedis ownerAsFormed(int slot) {
        List<EmbeddedRedis> masters = cluster.masters();
        return masters.get(Math.min(masters.size() - 1, slot / (16384 / masters.size())));
    }

    private static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.start();
        return t;
    }

    private static void timed(AtomicLong longestMs, AtomicLong unavailable, List<Throwable> wrong, Runnable call) {
        long started = System.nanoTime();
        try {
            call.run();
        } catch (StoreException e) {
            if (e.status() != StoreStatus.UNAVAILABLE) {
                wrong.add(e);
            }
            unavailable.incrementAndGet();
            Await.sleep(20);
        } catch (Throwable e) {
            wrong.add(e);
        }
        longestMs.accumulateAndGet((System.nanoTime() - started) / 1_000_000, Math::max);
    }
}
