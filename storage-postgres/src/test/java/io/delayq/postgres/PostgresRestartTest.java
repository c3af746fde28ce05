package io.delayq.postgres;

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
import io.delayq.postgres.testing.EmbeddedPostgres;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * PostgreSQL crashing (SIGKILL of the postmaster) and coming back: every transition the store acknowledged was
 * committed, so crash recovery replays it; meanwhile calls answer UNAVAILABLE, and the pool and the LISTEN connection
 * recover by themselves.
 */
class PostgresRestartTest {
    private static final String PAYLOAD = "{\"order\":1}";

    @Test
    void everyAcceptedJobAndEveryAckSurvivesAKilledServer(@TempDir Path dir) {
        String topic = "t-" + UUID.randomUUID();
        try (EmbeddedPostgres server = TestPostgres.startPrivate(dir)) {
            List<Lease> acked;
            Lease stillLeased;
            try (PostgresJobStore store = connect(server)) {
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
                assertThat(store.ack(acked.stream().map(LeaseRef::of).toList())).containsOnly(StoreStatus.OK);
                server.kill(); // SIGKILL: what was committed is in the WAL, nothing else
            }

            server.restart();
            try (PostgresJobStore store = connect(server)) {
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
            }
        }
    }

    @Test
    void aDownServerAnswersUnavailableAndTheStoreRecoversWhenItIsBack(@TempDir Path dir) throws Exception {
        String topic = "t-" + UUID.randomUUID();
        List<Long> wakes = new CopyOnWriteArrayList<>();
        try (EmbeddedPostgres server = TestPostgres.startPrivate(dir);
             PostgresJobStore store = connect(server);
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
                        assertThat(e.getMessage()).contains("PostgreSQL");
                    });
            assertThatThrownBy(() -> store.find(new JobRef(topic, "before")))
                    .isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE));

            server.restart();
            long deadline = System.currentTimeMillis() + 10_000;
            EnqueueResult result = null;
            while (result == null) {
                try {
                    result = store.enqueue(NewJob.delayed(topic, "after", PAYLOAD, 30_000, 3));
                } catch (StoreException e) {
                    assertThat(System.currentTimeMillis()).as("recovered within 10 s: " + e.getMessage())
                            .isLessThan(deadline);
                    Await.sleep(100);
                }
            }
            assertThat(result.created()).isTrue();
            assertThat(store.find(new JobRef(topic, "before"))).isPresent();
            // the LISTEN connection reconnects by itself and hears wake-ups again
            long until = System.currentTimeMillis() + 10_000;
            long earlier = result.job().runAt();
            long delay = 29_000;
            while (!wakes.contains(earlier) && System.currentTimeMillis() < until) {
                delay -= 1_000; // each job is the topic's new earliest and wakes the listeners
                earlier = store.enqueue(NewJob.delayed(topic, "after-" + UUID.randomUUID(), PAYLOAD, delay, 3))
                        .job().runAt();
                Await.sleep(200);
            }
            assertThat(wakes).contains(earlier);
        }
    }

    private static PostgresJobStore connect(EmbeddedPostgres server) {
        return PostgresJobStore.connect(server.jdbcUrl("postgres"), server.user(), "",
                PostgresStoreOptions.defaults());
    }
}
