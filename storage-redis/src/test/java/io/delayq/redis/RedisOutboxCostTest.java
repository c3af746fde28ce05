package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.OutboxEntry;
import io.delayq.core.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What reading the outbox costs when many topics have a backlog (after an archive outage): about {@code max} entries
 * read and decoded, not {@code max} from every partition. On a server of its own, so that its byte counts and its
 * outbox are this test's alone.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisOutboxCostTest {
    private static final int TOPICS = 30;
    private static final int PER_TOPIC = 10;
    private static final int PAYLOAD_BYTES = 16 * 1024;

    private static EmbeddedRedis server;
    private static RedisJobStore store;
    private static UnifiedJedis admin;

    @BeforeAll
    static void fillTheOutboxesOfManyTopics() {
        server = EmbeddedRedis.start(0, null, false);
        store = RedisJobStore.connect(server.uri());
        admin = RedisClient.create(server.uri());
        String payload = "{\"pad\":\"" + "x".repeat(PAYLOAD_BYTES) + "\"}";
        for (int t = 0; t < TOPICS; t++) {
            String topic = "backlog-" + t;
            List<NewJob> jobs = new ArrayList<>();
            for (int i = 0; i < PER_TOPIC; i++) {
                jobs.add(NewJob.delayed(topic, "j" + i, payload, 0, 1));
            }
            store.enqueue(jobs);
            Await.sleep(2);
            List<Lease> leases = store.reserve(topic, Delivery.PULL, PER_TOPIC, 60_000).leases();
            assertThat(leases).hasSize(PER_TOPIC);
            for (Lease lease : leases) {
                store.nack(LeaseRef.of(lease), Failure.dead("HTTP 410", 410));
            }
        }
        assertThat(store.outboxSize()).isEqualTo(TOPICS * PER_TOPIC);
    }

    @AfterAll
    static void stop() {
        admin.close();
        store.close();
        server.close();
    }

    @Test
    @Order(1)
    void aSmallReadReadsAboutThatManyEntriesWhateverTheNumberOfTopics() {
        int max = 10;
        long before = bytesSentByRedis();
        List<OutboxEntry> batch = store.readOutbox(max);
        long sent = bytesSentByRedis() - before;

        assertThat(batch).hasSize(max).allSatisfy(e -> assertThat(e.isReadable()).isTrue());
        // before: max entries from each of the 30 partitions, 30 × 10 × 16 KiB ≈ 4.9 MB sent and decoded per pass
        assertThat(sent).as("bytes Redis sent for one read of %d entries", max)
                .isLessThan(2L * max * PAYLOAD_BYTES);
    }

    @Test
    @Order(2)
    void drainingInSmallBatchesReachesEveryTopicAndLosesNothing() {
        Set<String> seen = new HashSet<>();
        List<OutboxEntry> batch;
        List<OutboxEntry> everything = new ArrayList<>();
        while (!(batch = store.readOutbox(7)).isEmpty()) {
            assertThat(batch.size()).isLessThanOrEqualTo(7);
            for (OutboxEntry e : batch) {
                assertThat(seen.add(e.entryId())).as("entry %s read once", e.entryId()).isTrue();
            }
            everything.addAll(batch);
            store.deleteOutbox(batch);
        }
        assertThat(everything).hasSize(TOPICS * PER_TOPIC);
        assertThat(store.outboxSize()).isZero();
    }

    /** {@code total_net_output_bytes} of the server: every reply it sent. */
    private static long bytesSentByRedis() {
        for (String line : admin.info("stats").split("\r?\n")) {
            if (line.startsWith("total_net_output_bytes:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new IllegalStateException("INFO stats has no total_net_output_bytes");
    }
}
