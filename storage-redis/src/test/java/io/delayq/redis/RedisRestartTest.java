package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreStatus;
import io.delayq.core.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redis crashing and coming back: with an fsynced append-only file nothing accepted is lost. */
class RedisRestartTest {
    private static final String PAYLOAD = "{\"order\":1}";

    @Test
    void everyAcceptedJobSurvivesAKilledServerWithAnAppendOnlyFile(@TempDir Path dataDir) {
        String topic = "t-" + UUID.randomUUID();
        EmbeddedRedis server = EmbeddedRedis.start(0, dataDir, true);
        int port = server.port();
        List<Lease> acked;
        Lease stillLeased;
        try (RedisJobStore store = RedisJobStore.connect(server.uri())) {
            List<NewJob> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                batch.add(NewJob.delayed(topic, "b" + i, PAYLOAD, i < 100 ? 0 : 600_000, 3));
            }
            assertThat(store.enqueue(batch)).allMatch(EnqueueResult::created);
            for (int i = 0; i < 20; i++) {
                store.enqueue(NewJob.delayed(topic, "s" + i, PAYLOAD, 600_000, 3));
            }
            Await.sleep(5);
            List<Lease> leases = store.reserve(topic, Delivery.PULL, 50, 600_000).leases();
            assertThat(leases).hasSize(50);
            acked = leases.subList(0, 49);
            stillLeased = leases.get(49);
            store.ack(acked.stream().map(LeaseRef::of).toList());
            server.kill(); // SIGKILL: only what Redis fsynced before answering is left
        }

        try (EmbeddedRedis restarted = EmbeddedRedis.start(port, dataDir, true);
             RedisJobStore store = RedisJobStore.connect(restarted.uri())) {
            for (int i = 0; i < 300; i++) {
                assertThat(store.find(new JobRef(topic, "b" + i))).as("b" + i).isPresent();
            }
            for (int i = 0; i < 20; i++) {
                assertThat(store.find(new JobRef(topic, "s" + i))).as("s" + i).isPresent();
            }
            for (Lease lease : acked) {
                assertThat(store.find(lease.ref()).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
            }
            Job leased = store.find(stillLeased.ref()).orElseThrow();
            assertThat(leased.state()).isEqualTo(JobState.LEASED);
            assertThat(store.ack(List.of(LeaseRef.of(stillLeased)))).containsExactly(StoreStatus.OK);
            assertThat(store.stats(topic).scheduled()).isEqualTo(50 + 200 + 20);
            assertThat(store.stats(topic).succeeded()).isEqualTo(50);
        } finally {
            server.close();
        }
    }

    @Test
    void aDownServerAnswersUnavailableAndTheStoreRecoversWhenItIsBack() throws Exception {
        String topic = "t-" + UUID.randomUUID();
        EmbeddedRedis server = EmbeddedRedis.start(0, null, false);
        int port = server.port();
        List<Long> wakes = new CopyOnWriteArrayList<>();
        try (RedisJobStore store = RedisJobStore.connect(server.uri());
             AutoCloseable sub = store.subscribe((StoreListener) (t, dueAt) -> {
                 if (t.equals(topic)) {
                     wakes.add(dueAt);
                 }
             })) {
            store.enqueue(NewJob.delayed(topic, "before", PAYLOAD, 60_000, 3));
            server.kill();

            assertThatThrownBy(() -> store.enqueue(NewJob.delayed(topic, "during", PAYLOAD, 0, 3)))
                    .isInstanceOfSatisfying(StoreException.class, e -> {
                        assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE);
                        assertThat(e.getMessage()).contains("Redis");
                    });
            assertThatThrownBy(() -> store.find(new JobRef(topic, "before")))
                    .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE));
            assertThatThrownBy(store::ping).isInstanceOf(StoreException.class);

            try (EmbeddedRedis back = EmbeddedRedis.start(port, null, false)) {
                long deadline = System.currentTimeMillis() + 10_000;
                EnqueueResult result = null;
                while (result == null) {
                    try {
                        result = store.enqueue(NewJob.delayed(topic, "after", PAYLOAD, 30_000, 3));
                    } catch (StoreException e) {
                        assertThat(System.currentTimeMillis()).as("recovered within 10 s").isLessThan(deadline);
                        Await.sleep(100);
                    }
                }
                assertThat(result.created()).isTrue();
                assertThat(store.ping()).isEqualTo("PONG");
                // the subscriber reconnects by itself and hears wake-ups again
                long due = result.job().runAt();
                long until = System.currentTimeMillis() + 10_000;
                long earlier = due;
                long delay = 29_000;
                while (!wakes.contains(earlier) && System.currentTimeMillis() < until) {
                    delay -= 1_000; // runAt drops by 800 ms a round, below the 30 s job: each job is the new earliest and publishes a wake-up
                    earlier = store.enqueue(NewJob.delayed(topic, "after-" + UUID.randomUUID(), PAYLOAD, delay, 3)).job().runAt();
                    Await.sleep(200);
                }
                assertThat(wakes).contains(earlier);
            }
        } finally {
            server.close();
        }
    }
}
