package io.delayq.postgres;

import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.Lease;
import io.delayq.core.LeaseToken;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reserves of one lane that arrive while a statement runs share the next one, each caller getting its share in the
 * order they came. The statement here hands out numbered leases, and its first call is held until the other callers
 * are queued, so which calls share a statement is certain.
 */
class ReserveCoalescerTest {
    private static final String TOPIC = "t";

    /** A statement that leases the next numbered jobs, records each call's max, and holds calls while told to. */
    private static final class Statement implements ReserveCoalescer.Statement {
        final List<Integer> calls = new CopyOnWriteArrayList<>();
        final AtomicInteger next = new AtomicInteger();
        volatile CountDownLatch hold = new CountDownLatch(0);
        volatile RuntimeException failure;

        @Override
        public ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs, long expiresAfterMs) {
            calls.add(max);
            try {
                hold.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failure != null) {
                throw failure;
            }
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < max; i++) {
                int n = next.getAndIncrement();
                leases.add(new Lease(new Job(topic, "j" + n, "{}", n, JobState.LEASED, 1, 3, null, null, null, false,
                        lane, 0, null, null, List.of()), LeaseToken.random(), defaultLeaseMs));
            }
            return new ReserveResult(leases, 1_000_000 + calls.size(), calls.size());
        }
    }

    @Test
    void callersWhoQueueWhileAStatementRunsShareTheNextInTheirOrder() throws Exception {
        Statement statement = new Statement();
        ReserveCoalescer coalescer = new ReserveCoalescer(10_000, statement);
        statement.hold = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            Future<ReserveResult> first = pool.submit(() -> coalescer.reserve(TOPIC, Delivery.PULL, 100, 30_000, 0));
            await(() -> statement.calls.size() == 1);
            List<Thread> waiting = new CopyOnWriteArrayList<>();
            List<Future<ReserveResult>> others = new ArrayList<>();
            for (int max : List.of(5, 1, 100, 7)) {
                others.add(pool.submit(() -> {
                    waiting.add(Thread.currentThread());
                    return coalescer.reserve(TOPIC, Delivery.PULL, max, 30_000, 0);
                }));
                // queued in this order: each one waits for the lane's lock before the next is started
                await(() -> waiting.size() == others.size()
                        && waiting.get(waiting.size() - 1).getState() == Thread.State.WAITING);
            }
            statement.hold.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS).leases()).hasSize(100);
            List<ReserveResult> shared = new ArrayList<>();
            for (Future<ReserveResult> f : others) {
                shared.add(f.get(10, TimeUnit.SECONDS));
            }
            assertThat(statement.calls).as("one statement for the first caller, one for the four queued behind it")
                    .containsExactly(100, 5 + 1 + 100 + 7);
            assertThat(shared).extracting(r -> r.leases().size()).containsExactly(5, 1, 100, 7);
            assertThat(shared.get(0).leases().get(0).job().id()).as("earliest first, in arrival order").isEqualTo("j100");
            assertThat(shared.get(1).leases().get(0).job().id()).isEqualTo("j105");
            assertThat(shared.get(3).leases().get(6).job().id()).isEqualTo("j212");
            assertThat(shared).extracting(ReserveResult::nextDueAt, ReserveResult::now)
                    .as("the shared statement's clock and next run time").containsOnly(
                            org.assertj.core.groups.Tuple.tuple(1_000_002L, 2L));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aStatementLeasingFewerThanAskedServesTheEarliestCallersFirst() {
        ReserveCoalescer.Statement two = (topic, lane, max, lease, expiresAfter) -> new ReserveResult(List.of(
                lease("a"), lease("b")), -1, 7);
        ReserveCoalescer coalescer = new ReserveCoalescer(10_000, two);

        ReserveResult alone = coalescer.reserve(TOPIC, Delivery.PULL, 5, 30_000, 0);

        assertThat(alone.leases()).extracting(l -> l.job().id()).containsExactly("a", "b");
        assertThat(alone.nextDueAt()).isEqualTo(-1);
    }

    @Test
    void aFailedStatementFailsEveryCallerItServedAndTheNextCallerRunsItsOwn() throws Exception {
        Statement statement = new Statement();
        ReserveCoalescer coalescer = new ReserveCoalescer(10_000, statement);
        statement.hold = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            Future<ReserveResult> first = pool.submit(() -> coalescer.reserve(TOPIC, Delivery.PULL, 10, 30_000, 0));
            await(() -> statement.calls.size() == 1);
            List<Thread> waiting = new CopyOnWriteArrayList<>();
            List<Future<ReserveResult>> others = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                others.add(pool.submit(() -> {
                    waiting.add(Thread.currentThread());
                    return coalescer.reserve(TOPIC, Delivery.PULL, 10, 30_000, 0);
                }));
                await(() -> waiting.size() == others.size()
                        && waiting.get(waiting.size() - 1).getState() == Thread.State.WAITING);
            }
            statement.failure = new StoreException(StoreStatus.UNAVAILABLE, "PostgreSQL did not reserve");
            statement.hold.countDown();

            for (Future<ReserveResult> f : List.of(first, others.get(0), others.get(1))) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreException.class);
            }
            assertThat(statement.calls).containsExactly(10, 20);

            statement.failure = null;
            assertThat(coalescer.reserve(TOPIC, Delivery.PULL, 3, 30_000, 0).leases()).hasSize(3);
            assertThat(statement.calls).containsExactly(10, 20, 3);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void requestsBeyondTheLimitWaitForTheNextStatementAndOtherLanesNeverWait() throws Exception {
        Statement statement = new Statement();
        ReserveCoalescer coalescer = new ReserveCoalescer(150, statement);
        statement.hold = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch held = statement.hold;
            Future<ReserveResult> first = pool.submit(() -> coalescer.reserve(TOPIC, Delivery.PULL, 100, 30_000, 0));
            await(() -> statement.calls.size() == 1);
            List<Thread> waiting = new CopyOnWriteArrayList<>();
            List<Future<ReserveResult>> others = new ArrayList<>();
            for (int max : List.of(100, 40, 100)) {
                others.add(pool.submit(() -> {
                    waiting.add(Thread.currentThread());
                    return coalescer.reserve(TOPIC, Delivery.PULL, max, 30_000, 0);
                }));
                await(() -> waiting.size() == others.size()
                        && waiting.get(waiting.size() - 1).getState() == Thread.State.WAITING);
            }
            // another lane and another lease time run at once, beside the held statement
            statement.hold = new CountDownLatch(0);
            assertThat(pool.submit(() -> coalescer.reserve(TOPIC, Delivery.PUSH, 2, 30_000, 0)).get(10, TimeUnit.SECONDS)
                    .leases()).hasSize(2);
            assertThat(pool.submit(() -> coalescer.reserve(TOPIC, Delivery.PULL, 2, 60_000, 0)).get(10, TimeUnit.SECONDS)
                    .leases()).hasSize(2);
            held.countDown();
            first.get(10, TimeUnit.SECONDS);
            Set<String> ids = new HashSet<>();
            for (Future<ReserveResult> f : others) {
                f.get(10, TimeUnit.SECONDS).leases().forEach(l -> ids.add(l.job().id()));
            }

            assertThat(statement.calls).as("100, the other lanes' 2 and 2 beside it, then 100 + 40 together (within the"
                    + " limit of 150) and the last 100 alone").containsExactly(100, 2, 2, 140, 100);
            assertThat(ids).hasSize(240);
        } finally {
            pool.shutdownNow();
        }
    }

    private static Lease lease(String id) {
        return new Lease(new Job(TOPIC, id, "{}", 0, JobState.LEASED, 1, 3, null, null, null, false, Delivery.PULL, 0,
                null, null, List.of()), LeaseToken.random(), 30_000);
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 10 s").isLessThan(deadline);
            Thread.sleep(1);
        }
    }
}
