package io.delayq.postgres;

import io.delayq.core.JobRef;
import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.postgres.testing.TestPostgres;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code delayq_circuits} under concurrency, beyond the contract: many callers on two stores (two pools, as two
 * instances) change one origin's row at once. The contract's probe race runs with a 200 ms interval, so a caller held
 * up that long may rightly claim the next probe; here the interval is an hour, so a second winner can only be a race.
 */
class PostgresCircuitBreakersTest {
    private static final int CALLERS = 16;
    private static PostgresJobStore one;
    private static PostgresJobStore two;
    private static Jdbi jdbi;

    @BeforeAll
    static void connect() {
        one = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
        two = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
        jdbi = Jdbi.create(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password());
    }

    @AfterAll
    static void close() {
        one.close();
        two.close();
    }

    @Test
    void exactlyOneOfManyConcurrentCallersOnTwoInstancesClaimsADueProbe() {
        for (int round = 0; round < 10; round++) {
            String origin = "http://probe-" + UUID.randomUUID() + ".test:80";
            OriginCircuit open = one.circuitBreakers().recordFailure(origin, new BreakerPolicy(true, 1, 3_600_000,
                    3_600_000, 10));
            assertThat(open.isOpen()).isTrue();
            // due now, the next one an hour after the claim: no caller can be late enough to rightly win a second
            jdbi.useHandle(h -> h.execute("UPDATE delayq_circuits SET next_probe_at = delayq_now() - interval '1 second'"
                    + " WHERE origin = ?", origin));

            List<Boolean> claims = concurrently(i -> breakers(i).claimProbe(origin));

            assertThat(claims).as("round %d", round).containsOnlyOnce(true).hasSize(CALLERS);
            assertThat(one.circuitBreakers().circuit(origin).nextProbeAt())
                    .as("the next probe is due a whole interval after the claim")
                    .isGreaterThanOrEqualTo(one.now() + 3_600_000 - 60_000);
        }
    }

    @Test
    void concurrentFailuresAndHoldsAllCountEvenWhenTheOriginHasNoRowYet() {
        String origin = "http://count-" + UUID.randomUUID() + ".test:80";
        BreakerPolicy neverOpens = new BreakerPolicy(true, 1_000_000, 1_000, 1_000, 10);

        concurrently(i -> {
            for (int k = 0; k < 5; k++) {
                breakers(i).recordFailure(origin, neverOpens);
                breakers(i).updateHeld(origin, List.of(new JobRef("t", i + "-" + k + "-a"),
                        new JobRef("t", i + "-" + k + "-b")), List.of());
            }
            return true;
        });

        OriginCircuit circuit = two.circuitBreakers().circuit(origin);
        assertThat(circuit.consecutiveFailures()).isEqualTo(CALLERS * 5);
        assertThat(circuit.heldJobs()).isEqualTo(CALLERS * 5 * 2);
        assertThat(circuit.isOpen()).isFalse();
        assertThat(two.circuitBreakers().circuits()).filteredOn(c -> c.origin().equals(origin)).hasSize(1);
    }

    @Test
    void aSuccessToAnOriginWithNothingToResetWritesNothing() {
        String origin = "http://healthy-" + UUID.randomUUID() + ".test:80";
        assertThat(one.circuitBreakers().recordSuccess(origin)).isEqualTo(OriginCircuit.closed(origin));
        assertThat(rows(origin)).as("no row for an origin that never failed").isZero();

        one.circuitBreakers().recordFailure(origin, new BreakerPolicy(true, 3, 1_000, 1_000, 10));
        one.circuitBreakers().recordSuccess(origin);
        String version = rowVersion(origin);
        OriginCircuit again = one.circuitBreakers().recordSuccess(origin);
        assertThat(again.consecutiveFailures()).isZero();
        assertThat(rowVersion(origin)).as("the row was read, not rewritten").isEqualTo(version);
    }

    private static CircuitBreakers breakers(int caller) {
        return (caller % 2 == 0 ? one : two).circuitBreakers();
    }

    /** Runs {@link #CALLERS} calls at once (released together), returning their answers. */
    private static <T> List<T> concurrently(CallerTask<T> task) {
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                int caller = i;
                Callable<T> call = () -> {
                    start.await();
                    return task.run(caller);
                };
                futures.add(pool.submit(call));
            }
            start.countDown();
            List<T> answers = new ArrayList<>();
            for (Future<T> f : futures) {
                answers.add(f.get(30, TimeUnit.SECONDS));
            }
            return answers;
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long rows(String origin) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM delayq_circuits WHERE origin = :origin")
                .bind("origin", origin).mapTo(Long.class).one());
    }

    /** The physical row version: changes with every UPDATE of the row, HOT or not. */
    private static String rowVersion(String origin) {
        return jdbi.withHandle(h -> h.createQuery("SELECT ctid::text || '/' || xmin::text FROM delayq_circuits"
                + " WHERE origin = :origin").bind("origin", origin).mapTo(String.class).one());
    }

    @FunctionalInterface
    private interface CallerTask<T> {
        T run(int caller) throws Exception;
    }
}
