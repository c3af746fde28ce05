package io.delayq.mongo;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.StoreStatus;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Drives real jobs to their death in a real {@link JobStore}. */
final class StoreFixture {
    private StoreFixture() {
    }

    /** Schedules a pull job with {@code attempts} attempts and fails every one; the last failure kills it. */
    static JobRef killJob(JobStore store, String topic, String id, int attempts) {
        assertThat(store.enqueue(NewJob.delayed(topic, id, "{\"id\":\"" + id + "\"}", 0, attempts)).status())
                .isEqualTo(StoreStatus.OK);
        for (int attempt = 1; attempt <= attempts; attempt++) {
            Lease lease = reserveOne(store, topic);
            assertThat(lease.attempt()).isEqualTo(attempt);
            Failure failure = attempt < attempts
                    ? Failure.retryAfter(0, "HTTP 500 on attempt " + attempt, 500)
                    : Failure.dead("HTTP 410 on attempt " + attempt, 410);
            assertThat(store.nack(LeaseRef.of(lease), failure)).isEqualTo(StoreStatus.OK);
        }
        return new JobRef(topic, id);
    }

    static Lease reserveOne(JobStore store, String topic) {
        long deadline = System.currentTimeMillis() + 5_000;
        while (System.currentTimeMillis() < deadline) {
            List<Lease> leases = store.reserve(topic, Delivery.PULL, 1, 10_000).leases();
            if (!leases.isEmpty()) {
                return leases.get(0);
            }
            sleep(10);
        }
        throw new AssertionError("no job of " + topic + " became due within 5 s");
    }

    /** Entries of this topic still in the store's outbox. */
    static long outboxEntries(JobStore store, String topic) {
        return store.readOutbox(10_000).stream().filter(e -> e.job().topic().equals(topic)).count();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static void await(String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.currentTimeMillis() + 15_000;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            sleep(20);
        }
    }
}
