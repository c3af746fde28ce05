package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.OutboxEntry;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreStatus;
import io.delayq.core.testing.Await;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.resps.StreamEntry;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records the scripts cannot parse, written into Redis by the test: one such record costs the other jobs of its batch
 * nothing, and is moved, raw, to its partition's quarantine stream.
 */
class RedisDamagedRecordsTest {
    private static final String PAYLOAD = "{\"order\":7}";
    private final String uri = TestRedis.sharedUri();
    private final String topic = "t-" + UUID.randomUUID();
    private final Partition p = Partition.of(topic, 0);
    private final RedisFixtures raw = new RedisFixtures(uri);
    private final RedisJobStore store = RedisJobStore.connect(uri);

    @AfterEach
    void close() {
        store.close();
        raw.close();
    }

    @Test
    void reserveQuarantinesARecordItCannotParseAndLeasesTheRest() {
        store.enqueue(List.of(NewJob.delayed(topic, "a", PAYLOAD, 0, 3), NewJob.delayed(topic, "b", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "c", PAYLOAD, 0, 3)));
        raw.redis().hset(p.jobs(), "b", "damaged: neither a head nor a payload");
        Await.sleep(5);

        ReserveResult r = store.reserve(topic, Delivery.PULL, 10, 60_000);

        assertThat(r.leases()).extracting(l -> l.job().id()).containsExactly("a", "c");
        assertThat(raw.entries(p.schedPull())).as("nothing left out of its index").isEmpty();
        assertThat(raw.entries(p.leased())).containsOnlyKeys("a", "c");
        assertThat(raw.redis().hexists(p.jobs(), "b")).isFalse();
        assertQuarantined("b", "damaged: neither a head nor a payload", "reserve");
        assertThat(store.ack(r.leases().stream().map(LeaseRef::of).toList())).containsOnly(StoreStatus.OK);
    }

    @Test
    void expireQuarantinesARecordItCannotParseAndTakesBackTheRest() {
        store.enqueue(List.of(NewJob.delayed(topic, "a", PAYLOAD, 0, 3), NewJob.delayed(topic, "b", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "c", PAYLOAD, 0, 3)));
        Await.sleep(5);
        List<Lease> leases = store.reserve(topic, Delivery.PULL, 10, 50).leases();
        assertThat(leases).hasSize(3);
        String broken = "L1|3|0|0|fp|{broken json\n" + PAYLOAD;
        raw.redis().hset(p.jobs(), "b", broken);
        long deadline = leases.stream().mapToLong(Lease::deadline).max().orElseThrow();
        Await.until("the leases are past their deadline", () -> store.now() > deadline);

        assertThat(store.expireLeases(topic, 10)).isEqualTo(3);

        assertThat(raw.entries(p.leased())).as("nothing left out of its index").isEmpty();
        assertThat(raw.entries(p.schedPull())).containsOnlyKeys("a", "c");
        for (String id : List.of("a", "c")) {
            assertThat(store.find(new JobRef(topic, id)).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        }
        assertThat(raw.redis().hexists(p.jobs(), "b")).isFalse();
        assertQuarantined("b", broken, "expire");
    }

    @Test
    void anOutboxEntryTheScriptsWroteInAnotherShapeIsHandedOutUnreadable() {
        store.enqueue(NewJob.delayed(topic, "ok", PAYLOAD, 0, 1));
        Await.sleep(5);
        Lease lease = store.reserve(topic, Delivery.PULL, 1, 60_000).leases().get(0);
        store.nack(LeaseRef.of(lease), io.delayq.core.Failure.dead("HTTP 410", 410));
        // as a later version with another record shape might write it
        raw.redis().xadd(p.archive(), XAddParams.xAddParams(), Map.of("i", "future", "r", "v2:{\"whatever\":1}"));

        List<OutboxEntry> mine = store.readOutbox(10_000).stream().filter(e -> e.ref().topic().equals(topic)).toList();

        assertThat(mine).extracting(e -> e.ref().id()).containsExactly("ok", "future");
        assertThat(mine.get(0).isReadable()).isTrue();
        OutboxEntry future = mine.get(1);
        assertThat(future.isReadable()).isFalse();
        assertThat(future.unreadable().raw()).isEqualTo("v2:{\"whatever\":1}");
        assertThat(future.unreadable().reason()).contains("future");
        assertThat(future.entryId()).startsWith(topic + "#0@");

        store.quarantineOutbox(List.of(future));
        assertThat(raw.redis().xlen(p.archive())).isEqualTo(1);
        assertQuarantined("future", "v2:{\"whatever\":1}", "outbox");
        store.deleteOutbox(List.of(mine.get(0)));
    }

    private void assertQuarantined(String id, String record, String origin) {
        List<StreamEntry> quarantined = raw.redis().xrange(p.quarantine(), (StreamEntryID) null, null);
        assertThat(quarantined).hasSize(1);
        Map<String, String> fields = quarantined.get(0).getFields();
        assertThat(fields).containsEntry("i", id).containsEntry("r", record).containsEntry("o", origin);
        assertThat(fields.get("e")).as("why").isNotBlank();
        assertThat(store.quarantineSize()).isPositive();
    }
}
