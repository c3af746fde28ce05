package io.delayq.core.testing;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.StoreStatus;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Drives real jobs through any {@link JobStore}: fresh topics, leases, jobs failed to their death. */
public final class StoreFixtures {
    private StoreFixtures() {
    }

    /** A topic no other test uses ({@code t-<uuid>}), so test classes may share one store and run side by side. */
    public static String newTopic() {
        return "t-" + UUID.randomUUID();
    }

    /**
     * Schedules a pull job (payload {@code {"id": "<id>"}}) with {@code attempts} attempts and fails every one; the
     * last failure kills it. Each failure reads {@code HTTP 500 on attempt <n>}.
     */
    public static JobRef killJob(JobStore store, String topic, String id, int attempts) {
        return killJob(store, topic, id, attempts, 500);
    }

    /** As {@link #killJob(JobStore, String, String, int)}, the last failure with {@code finalStatus}. */
    public static JobRef killJob(JobStore store, String topic, String id, int attempts, int finalStatus) {
        assertThat(store.enqueue(NewJob.delayed(topic, id, "{\"id\":\"" + id + "\"}", 0, attempts)).status())
                .isEqualTo(StoreStatus.OK);
        for (int attempt = 1; attempt <= attempts; attempt++) {
            Lease lease = reserveOne(store, topic);
            assertThat(lease.attempt()).isEqualTo(attempt);
            Failure failure = attempt < attempts
                    ? Failure.retryAfter(0, "HTTP 500 on attempt " + attempt, 500)
                    : Failure.dead("HTTP " + finalStatus + " on attempt " + attempt, finalStatus);
            assertThat(store.nack(LeaseRef.of(lease), failure)).isEqualTo(StoreStatus.OK);
        }
        return new JobRef(topic, id);
    }

    /** Leases one pull job of {@code topic} (10 s lease), waiting up to 5 s for one to fall due. */
    public static Lease reserveOne(JobStore store, String topic) {
        long deadline = System.currentTimeMillis() + 5_000;
        while (System.currentTimeMillis() < deadline) {
            List<Lease> leases = store.reserve(topic, Delivery.PULL, 1, 10_000).leases();
            if (!leases.isEmpty()) {
                return leases.get(0);
            }
            Await.sleep(10);
        }
        throw new AssertionError("no job of " + topic + " became due within 5 s");
    }

    /** Entries of this topic still in the store's outbox (reads up to 10,000). */
    public static long outboxEntries(JobStore store, String topic) {
        return store.readOutbox(10_000).stream().filter(e -> e.ref().topic().equals(topic)).count();
    }
}
