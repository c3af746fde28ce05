package io.delayq.testing;

import io.delayq.core.Delivery;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreStatus;
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
 * A store's server crashing ({@code kill -9}) and coming back, run by each store against a real server of its own:
 * every transition the store acknowledged survives (it was made durable before the answer); while the server is down
 * calls answer {@link StoreStatus#UNAVAILABLE} naming the server; and the store's connections, the subscription to
 * wake-ups included, recover by themselves when it is back.
 *
 * @param <S> the store's server, as the subclass starts it
 */
public abstract class StoreRestartContract<S extends StoreRestartContract.RestartableServer> {
    private static final String PAYLOAD = "{\"order\":1}";

    /** A server the test can kill and restart, on the same port and data. */
    public interface RestartableServer extends AutoCloseable {
        /** SIGKILL: only what the server made durable is left. */
        void kill();

        /** Starts it again where it was, with its data. */
        void restart();

        @Override
        void close();
    }

    /** A new server of the store under test, keeping its data in {@code dir}, durable on every acknowledged write. */
    protected abstract S startServer(Path dir);

    /** A store on {@code server}. */
    protected abstract JobStore connect(S server);

    /** How an UNAVAILABLE error names the server ({@code Redis}, {@code PostgreSQL}). */
    protected abstract String serverName();

    @Test
    void everyAcceptedJobAndEveryAckSurvivesAKilledServer(@TempDir Path dir) {
        String topic = "t-" + UUID.randomUUID();
        try (S server = startServer(dir)) {
            List<Lease> acked;
            Lease stillLeased;
            try (JobStore store = connect(server)) {
                List<NewJob> batch = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    batch.add(NewJob.delayed(topic, "b" + i, PAYLOAD, i < 100 ? 0 : 600_000, 3));
                }
                assertThat(store.enqueue(batch)).allMatch(EnqueueResult::created);
                for (int i = 0; i < 20; i++) {
                    store.enqueue(NewJob.delayed(topic, "s" + i, PAYLOAD, 600_000, 3));
                }
                sleep(5);
                List<Lease> leases = store.reserve(topic, Delivery.PULL, 50, 600_000).leases();
                assertThat(leases).hasSize(50);
                acked = leases.subList(0, 49);
                stillLeased = leases.get(49);
                assertThat(store.ack(acked.stream().map(LeaseRef::of).toList())).containsOnly(StoreStatus.OK);
                server.kill();
            }

            server.restart();
            try (JobStore store = connect(server)) {
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
        try (S server = startServer(dir);
             JobStore store = connect(server);
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
                        assertThat(e.getMessage()).contains(serverName());
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
                    sleep(100);
                }
            }
            assertThat(result.created()).isTrue();
            assertThat(store.find(new JobRef(topic, "before"))).isPresent();
            // the subscription reconnects by itself and hears wake-ups again
            long until = System.currentTimeMillis() + 10_000;
            long earlier = result.job().runAt();
            long delay = 29_000;
            while (!wakes.contains(earlier) && System.currentTimeMillis() < until) {
                delay -= 1_000; // each job is the topic's new earliest and wakes the listeners
                earlier = store.enqueue(NewJob.delayed(topic, "after-" + UUID.randomUUID(), PAYLOAD, delay, 3))
                        .job().runAt();
                sleep(200);
            }
            assertThat(wakes).contains(earlier);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
