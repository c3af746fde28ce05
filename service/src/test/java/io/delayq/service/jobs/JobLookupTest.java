package io.delayq.service.jobs;

import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.JobStore;
import io.delayq.core.OutboxEntry;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.JobArchive;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code GET} of a job: the store first, the archive only for a job the store does not know. */
class JobLookupTest {
    private static final JobRef REF = new JobRef("t", "j");
    private static final Job LIVE = job(JobState.SCHEDULED);
    private static final Job ARCHIVED = job(JobState.DEAD);

    private final AtomicInteger archiveCalls = new AtomicInteger();

    @Test
    void aJobTheStoreKnowsComesFromTheStoreWithoutAskingTheArchive() {
        var lookup = new JobLookup(store(ref -> Optional.of(LIVE)), archive(ref -> Optional.of(ARCHIVED)));

        assertThat(lookup.find(REF)).contains(LIVE);
        assertThat(archiveCalls).hasValue(0);
    }

    @Test
    void aJobTheStoreForgotComesFromTheArchive() {
        var lookup = new JobLookup(store(ref -> Optional.empty()), archive(ref -> Optional.of(ARCHIVED)));

        assertThat(lookup.find(REF)).contains(ARCHIVED);
    }

    @Test
    void aJobNeitherKnowsIsNotFound() {
        var lookup = new JobLookup(store(ref -> Optional.empty()), archive(ref -> Optional.empty()));

        assertThat(lookup.find(REF)).isEmpty();
        assertThat(archiveCalls).hasValue(1);
    }

    /** Not "no such job" while the archive, which might have it, cannot be asked. */
    @Test
    void anUnreachableArchiveIsUnavailableNotNotFound() {
        var lookup = new JobLookup(store(ref -> Optional.empty()), archive(ref -> {
            throw new StoreException(StoreStatus.UNAVAILABLE, "archive down");
        }));

        assertThatThrownBy(() -> lookup.find(REF)).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE));
    }

    @Test
    void anUnreachableStoreIsUnavailableAndTheArchiveIsNotAsked() {
        var lookup = new JobLookup(store(ref -> {
            throw new StoreException(StoreStatus.UNAVAILABLE, "store down");
        }), archive(ref -> Optional.of(ARCHIVED)));

        assertThatThrownBy(() -> lookup.find(REF)).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE));
        assertThat(archiveCalls).hasValue(0);
    }

    private static Job job(JobState state) {
        return new Job(REF.topic(), REF.id(), "{}", 1_000, state, 1, 3, null, null, null, false, Delivery.PULL, 500,
                state == JobState.DEAD ? 2_000L : null, null, List.of());
    }

    /** A store that only answers {@code find}. */
    private static JobStore store(Function<JobRef, Optional<Job>> find) {
        return (JobStore) Proxy.newProxyInstance(JobStore.class.getClassLoader(), new Class<?>[]{JobStore.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("find")) {
                        return find.apply((JobRef) args[0]);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private JobArchive archive(Function<JobRef, Optional<Job>> find) {
        return new JobArchive() {
            @Override
            public void write(List<OutboxEntry> entries) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Optional<Job> find(JobRef ref) {
                archiveCalls.incrementAndGet();
                return find.apply(ref);
            }

            @Override
            public void close() {
            }
        };
    }
}
