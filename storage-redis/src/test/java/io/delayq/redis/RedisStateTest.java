package io.delayq.redis;

import io.delayq.core.Attempt;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreStatus;
import io.delayq.core.testing.Await;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the scripts leave in Redis, read back raw: the key layout, scores and records of storage-redis/README.md. */
class RedisStateTest {
    private static final String PAYLOAD = "{\"order\":7}";
    private final String uri = TestRedis.sharedUri();
    private final String topic = "t-" + UUID.randomUUID();
    private final Partition p = Partition.of(topic, 0);
    private final RedisFixtures raw = new RedisFixtures(uri);
    private RedisJobStore store = RedisJobStore.connect(uri);

    @AfterEach
    void close() {
        store.close();
        raw.close();
    }

    @Test
    void keysOfAPartitionShareOneHashTagAndSlot() {
        assertThat(p.jobs()).isEqualTo("dq:{" + topic + "#0}:jobs");
        assertThat(p.schedPush()).isEqualTo("dq:{" + topic + "#0}:scheduled:push");
        assertThat(p.schedPull()).isEqualTo("dq:{" + topic + "#0}:scheduled:pull");
        assertThat(p.leased()).isEqualTo("dq:{" + topic + "#0}:leased");
        assertThat(p.finished()).isEqualTo("dq:{" + topic + "#0}:finished");
        assertThat(p.archive()).isEqualTo("dq:{" + topic + "#0}:archive");
        assertThat(p.stats()).isEqualTo("dq:{" + topic + "#0}:stats");
        assertThat(p.quarantine()).isEqualTo("dq:{" + topic + "#0}:quarantine");
        int slot = JedisClusterCRC16.getSlot(p.jobs());
        for (String key : List.of(p.schedPush(), p.schedPull(), p.leased(), p.finished(), p.archive(), p.stats(),
                p.quarantine())) {
            assertThat(JedisClusterCRC16.getSlot(key)).as(key).isEqualTo(slot);
        }
    }

    @Test
    void aScheduledJobIsOneHashFieldAndOneScheduledEntry() throws Exception {
        long runAt = store.enqueue(NewJob.delayed(topic, "s1", PAYLOAD, 60_000, 3)).job().runAt();
        store.enqueue(NewJob.delayed(topic, "s2", PAYLOAD, 60_000, 3).withDelivery(Delivery.PUSH));

        assertThat(raw.entries(p.schedPull())).containsExactly(Map.entry("s1", runAt));
        assertThat(raw.entries(p.schedPush())).containsOnlyKeys("s2");
        assertThat(raw.redis().hlen(p.jobs())).isEqualTo(2);
        assertThat(raw.payload(p, "s1")).isEqualTo(PAYLOAD);
        RedisFixtures.Head head = raw.head(p, "s1");
        assertThat(head.state()).isEqualTo('S');
        assertThat(head.runAt()).isEqualTo(runAt);
        assertThat(head.maxAttempts()).isEqualTo(3);
        assertThat(head.fingerprint()).isEqualTo(RecordCodec.storedFingerprint(NewJob.delayed(topic, "s1", PAYLOAD, 60_000, 3)))
                .hasSize(8);
        assertThat(head.text()).as("attempts 0, the pull lane and no options: nothing but the five fields")
                .startsWith("S|3|").hasSizeLessThanOrEqualTo(30);
        assertThat(head.extra().isEmpty()).isTrue();
        assertThat(raw.head(p, "s2").push()).isTrue();
        assertThat(raw.head(p, "s2").text()).startsWith("SP|");
        assertThat(raw.redis().sismember(RedisKeys.TOPICS, topic)).isTrue();
    }

    @Test
    void aLeaseMovesTheJobToLeasedWithItsDeadlineAndToken() throws Exception {
        store.enqueue(NewJob.delayed(topic, "l1", PAYLOAD, 0, 3));
        Thread.sleep(5);
        ReserveResult r = store.reserve(topic, Delivery.PULL, 1, 10_000);
        Lease lease = r.leases().get(0);
        assertThat(raw.entries(p.schedPull())).isEmpty();
        assertThat(raw.entries(p.leased())).containsExactly(Map.entry("l1", lease.deadline()));
        assertThat(lease.deadline()).isEqualTo(r.now() + 10_000);
        RedisFixtures.Head head = raw.head(p, "l1");
        assertThat(head.state()).isEqualTo('L');
        assertThat(head.attempts()).isEqualTo(1);
        assertThat(head.extra().get("t").asText()).isEqualTo(lease.token().text());
        assertThat(raw.payload(p, "l1")).isEqualTo(PAYLOAD);

        store.ack(List.of(LeaseRef.of(lease)));
        assertThat(raw.entries(p.leased())).isEmpty();
        assertThat(raw.entries(p.finished())).containsOnlyKeys("l1");
        RedisFixtures.Head done = raw.head(p, "l1");
        assertThat(done.state()).isEqualTo('Y');
        assertThat(done.extra().has("t")).as("no token once finished").isFalse();
        assertThat(raw.entries(p.finished()).get("l1")).isEqualTo(done.extra().get("x").asLong());
        assertThat(raw.redis().hget(p.stats(), "succeeded")).isEqualTo("1");
        assertThat(raw.redis().xlen(p.archive())).as("succeeded jobs are not archived by default").isZero();
    }

    @Test
    void aDeadJobIsWrittenToTheArchiveStream() throws Exception {
        store.enqueue(NewJob.delayed(topic, "d1", PAYLOAD, 0, 3));
        Thread.sleep(5);
        Lease lease = store.reserve(topic, Delivery.PULL, 1, 10_000).leases().get(0);
        store.nack(LeaseRef.of(lease), Failure.dead("gone", 410));
        List<StreamEntry> entries = raw.redis().xrange(p.archive(), "-", "+");
        assertThat(entries).hasSize(1);
        assertThat(entries.get(0).getFields().get("i")).isEqualTo("d1");
        assertThat(entries.get(0).getFields().get("r")).isEqualTo(raw.record(p, "d1"));
        assertThat(raw.redis().hget(p.stats(), "dead")).isEqualTo("1");
        store.deleteOutbox(store.readOutbox(100_000).stream().filter(e -> e.ref().topic().equals(topic)).toList());
        assertThat(raw.redis().xlen(p.archive())).isZero();
    }

    @Test
    void finishedRecordsAreTrimmedAfterTheRetentionByLaterReserves() throws Exception {
        store.close();
        store = RedisJobStore.connect(uri, RedisStoreOptions.defaults().withFinishedRetention(Duration.ofMillis(800)));
        store.enqueue(List.of(NewJob.delayed(topic, "old", PAYLOAD, 0, 3), NewJob.delayed(topic, "new", PAYLOAD, 0, 3)));
        Thread.sleep(5);
        Map<String, Lease> leases = new java.util.HashMap<>();
        store.reserve(topic, Delivery.PULL, 2, 10_000).leases().forEach(l -> leases.put(l.job().id(), l));
        store.ack(List.of(LeaseRef.of(leases.get("old"))));
        assertThat(store.find(new JobRef(topic, "old"))).isPresent();
        Thread.sleep(900);
        store.ack(List.of(LeaseRef.of(leases.get("new"))));
        store.reserve(topic, Delivery.PULL, 1, 10_000);
        assertThat(store.find(new JobRef(topic, "old"))).as("trimmed").isEmpty();
        assertThat(store.find(new JobRef(topic, "new"))).isPresent();
        assertThat(raw.entries(p.finished())).containsOnlyKeys("new");
        // a trimmed id may be used again
        assertThat(store.enqueue(NewJob.delayed(topic, "old", "{\"again\":1}", 0, 3)).created()).isTrue();
    }

    @Test
    void historyKeepsTheLastAttemptsOnly() throws Exception {
        store.close();
        store = RedisJobStore.connect(uri, RedisStoreOptions.defaults().withHistorySize(2));
        store.enqueue(NewJob.delayed(topic, "h", PAYLOAD, 0, 10));
        for (int i = 1; i <= 4; i++) {
            Thread.sleep(3);
            Lease lease = store.reserve(topic, Delivery.PULL, 1, 10_000).leases().get(0);
            store.nack(LeaseRef.of(lease), Failure.retryAfter(0, "fail " + i, 500 + i));
        }
        var history = store.find(new JobRef(topic, "h")).orElseThrow().history();
        assertThat(history).extracting(a -> a.error()).containsExactly("fail 3", "fail 4");
        assertThat(history).extracting(a -> a.number()).containsExactly(3, 4);
    }

    @Test
    void aHeldNackGivesTheAttemptBackAndMarksItsHistoryEntry() throws Exception {
        store.enqueue(NewJob.delayed(topic, "held", PAYLOAD, 0, 1));
        Thread.sleep(3);
        Lease lease = store.reserve(topic, Delivery.PULL, 1, 10_000).leases().get(0);
        long before = store.now();
        assertThat(store.nack(LeaseRef.of(lease), Failure.held(300, "circuit open"))).isEqualTo(StoreStatus.OK);

        RedisFixtures.Head head = raw.head(p, "held");
        assertThat(head.state()).as("scheduled again, although its only attempt was leased").isEqualTo('S');
        assertThat(head.attempts()).as("the attempt given back").isZero();
        assertThat(head.runAt()).isGreaterThanOrEqualTo(before + 300);
        assertThat(raw.entries(p.schedPull())).containsExactly(Map.entry("held", head.runAt()));
        assertThat(raw.entries(p.leased())).isEmpty();
        assertThat(head.extra().has("e")).as("a hold is not the job's last error").isFalse();
        assertThat(head.extra().has("t")).as("the token is spent").isFalse();
        var entry = head.extra().get("h").get(0);
        assertThat(entry.get("h").asInt()).isEqualTo(1);
        assertThat(entry.get("n").asInt()).isEqualTo(1);
        assertThat(entry.get("e").asText()).isEqualTo("circuit open");
        assertThat(store.nack(LeaseRef.of(lease), Failure.held(0, "again"))).isEqualTo(StoreStatus.STALE_LEASE);

        Await.until("the held job is due again", 3_000, () -> store.now() >= head.runAt());
        Lease again = store.reserve(topic, Delivery.PULL, 1, 10_000).leases().get(0);
        assertThat(again.attempt()).isEqualTo(1);
        assertThat(again.job().history()).extracting(Attempt::isHeld).containsExactly(true);
        assertThat(store.nack(LeaseRef.of(again), Failure.retryAfter(0, "real failure", 503))).isEqualTo(StoreStatus.OK);
        Job dead = store.find(new JobRef(topic, "held")).orElseThrow();
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.lastError()).isEqualTo("real failure");
        assertThat(dead.history()).extracting(Attempt::isHeld).containsExactly(true, false);
        assertThat(raw.head(p, "held").extra().get("h").get(1).has("h")).as("a real attempt is not marked").isFalse();
    }

    @Test
    void aJobsOwnDeadNoticeTargetIsTheRareFieldOd() throws Exception {
        Callback onDead = new Callback("https://ops.example.test/dead", Map.of("X-Team", "billing"));
        store.enqueue(NewJob.delayed(topic, "od", PAYLOAD, 60_000, 3).withOnDead(onDead));
        store.enqueue(NewJob.delayed(topic, "plain", PAYLOAD, 60_000, 3));
        String od = raw.head(p, "od").extra().get("od").asText();
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readValue(od, Callback.class)).isEqualTo(onDead);
        assertThat(raw.head(p, "plain").extra().has("od")).as("a job without one costs no byte").isFalse();

        // a record written before dead notices existed (no od) reads as "the topic's"
        assertThat(store.find(new JobRef(topic, "plain")).orElseThrow().onDead()).isNull();
        // and the target rides along through the scripts' re-encoding of the rare fields (here: reschedule)
        store.reschedule(new JobRef(topic, "od"), 120_000L, null);
        assertThat(store.find(new JobRef(topic, "od")).orElseThrow().onDead()).isEqualTo(onDead);
    }

    @Test
    void jobsSpreadOverPartitionsByAStableHashOfTheirId() {
        store.close();
        store = RedisJobStore.connect(uri, RedisStoreOptions.defaults().withPartitions(1, Map.of(topic, 4)));
        List<NewJob> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            jobs.add(NewJob.delayed(topic, "p" + i, PAYLOAD, 60_000, 3));
        }
        store.enqueue(jobs);
        long total = 0;
        for (int i = 0; i < 4; i++) {
            Partition part = Partition.spread(topic, i, 4);
            long n = raw.redis().hlen(part.jobs());
            assertThat(n).as("partition %d", i).isBetween(20L, 100L);
            assertThat(raw.redis().zcard(part.schedPull())).isEqualTo(n);
            total += n;
        }
        assertThat(total).isEqualTo(200);
        assertThat(store.partition(topic, "p7")).isEqualTo(store.partition(topic, "p7"));
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update("p7".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(store.partition(topic, "p7").index()).isEqualTo((int) (crc.getValue() % 4));
        assertThat(raw.redis().hexists(store.partition(topic, "p7").jobs(), "p7")).isTrue();
        assertThat(store.stats(topic).scheduled()).isEqualTo(200);
    }

    @Test
    void aTopicRecordedUnderTheFirstLayoutKeepsItsKeys() {
        // written by a version before the spread layout: "4", jobs under {topic#p}
        raw.redis().hset(RedisKeys.PARTITIONS, topic, "4");
        Partition legacy = Partition.of(topic, store.partitions(topic)[0].index());
        assertThat(store.partitions(topic)).extracting(Partition::jobs)
                .containsExactly(Partition.of(topic, 0).jobs(), Partition.of(topic, 1).jobs(),
                        Partition.of(topic, 2).jobs(), Partition.of(topic, 3).jobs());
        store.enqueue(NewJob.delayed(topic, "old", PAYLOAD, 0, 3));
        assertThat(raw.redis().hexists(store.partition(topic, "old").jobs(), "old")).isTrue();
        assertThat(legacy.jobs()).isEqualTo("dq:{" + topic + "#0}:jobs");
        assertThat(raw.redis().hget(RedisKeys.PARTITIONS, topic)).isEqualTo("4");

        // a spread topic's tags land in the p-th quarter of the slot space
        String spread = topic + "-new";
        for (int p = 0; p < 4; p++) {
            assertThat(JedisClusterCRC16.getSlot(Partition.spread(spread, p, 4).jobs()) * 4 / 16384).isEqualTo(p);
        }
        // and a record this version cannot read is refused, not guessed at
        raw.redis().hset(RedisKeys.PARTITIONS, spread, "4 zigzag");
        assertThatThrownBy(() -> store.partitions(spread)).isInstanceOf(io.delayq.core.StoreException.class)
                .hasMessageContaining("cannot read");
    }

    @Test
    void aTopicKeepsThePartitionCountItWasFirstUsedWith() {
        store.close();
        store = RedisJobStore.connect(uri, RedisStoreOptions.defaults().withPartitions(1, Map.of(topic, 4)));
        List<NewJob> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            jobs.add(NewJob.delayed(topic, "k" + i, PAYLOAD, 0, 3));
        }
        store.enqueue(jobs);
        assertThat(raw.redis().hget(RedisKeys.PARTITIONS, topic)).isEqualTo("4 spread");

        // another instance configured with 2 partitions for the topic: it must still see (and serve) every job
        try (RedisJobStore other = RedisJobStore.connect(uri, RedisStoreOptions.defaults().withPartitions(2, Map.of()))) {
            assertThat(other.partitions(topic)).hasSize(4);
            assertThat(other.stats(topic).scheduled()).isEqualTo(40);
            for (int i = 0; i < 40; i++) {
                assertThat(other.find(new JobRef(topic, "k" + i))).as("k%d", i).isPresent();
                assertThat(other.enqueue(NewJob.delayed(topic, "k" + i, PAYLOAD, 0, 3)).created())
                        .as("k%d is taken", i).isFalse();
            }
            int leased = 0;
            for (int round = 0; round < 10 && leased < 40; round++) {
                leased += other.reserve(topic, Delivery.PULL, 100, 10_000).leases().size();
            }
            assertThat(leased).isEqualTo(40);
        }
    }

    @Test
    void aNewEarliestJobPublishesOneWakeMessage() throws Exception {
        List<String> messages = new java.util.concurrent.CopyOnWriteArrayList<>();
        var pubSub = new redis.clients.jedis.JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                if (message.startsWith(topic + "\n")) {
                    messages.add(message);
                }
            }
        };
        Thread listener = new Thread(() -> raw.redis().subscribe(pubSub, RedisKeys.WAKE));
        listener.setDaemon(true);
        listener.start();
        Await.until("the test subscriber is subscribed", 2_000, pubSub::isSubscribed);
        long first = store.enqueue(NewJob.delayed(topic, "w1", PAYLOAD, 30_000, 3)).job().runAt();
        store.enqueue(NewJob.delayed(topic, "w2", PAYLOAD, 60_000, 3));
        Await.until("a wake-up message arrives", 2_000, () -> !messages.isEmpty());
        Thread.sleep(100);
        pubSub.unsubscribe();
        assertThat(messages).containsExactly(topic + "\nPULL\n" + first);
    }
}
