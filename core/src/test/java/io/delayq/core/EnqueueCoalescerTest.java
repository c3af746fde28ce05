package io.delayq.core;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class EnqueueCoalescerTest {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** A store's batch enqueue that answers each job with itself, after {@code delayMs}. */
    private static List<EnqueueResult> answer(List<NewJob> jobs, long delayMs) {
        try {
            Thread.sleep(delayMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<EnqueueResult> results = new ArrayList<>();
        for (NewJob job : jobs) {
            results.add(new EnqueueResult(StoreStatus.OK, true, new Job(job.topic(), job.id(), job.payload(), 0,
                    JobState.SCHEDULED, 0, job.maxAttempts(), null, null, null, false, job.delivery(), 0, null, null,
                    List.of())));
        }
        return results;
    }

    @Test
    void everyCallerGetsItsOwnJobBackAndBatchesAreShared() throws Exception {
        AtomicInteger batches = new AtomicInteger();
        EnqueueCoalescer coalescer = new EnqueueCoalescer("test", jobs -> {
            batches.incrementAndGet();
            return answer(jobs, 2);
        });
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> callers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                callers.add(pool.submit(() -> {
                    for (int i = 0; i < 100; i++) {
                        String id = thread + "-" + i;
                        if (!coalescer.submit(NewJob.delayed("t", id, "{}", 1_000, 3)).job().id().equals(id)) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> caller : callers) {
                assertThat(caller.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(batches.get()).as("800 jobs from 8 callers in fewer store calls").isLessThan(800);
    }

    /** A job the store refuses (it checks every job before writing any) fails its own caller only. */
    @Test
    void aRefusedJobFailsAloneAndTheOthersOfItsBatchAreStored() throws Exception {
        List<String> stored = java.util.Collections.synchronizedList(new ArrayList<>());
        EnqueueCoalescer coalescer = new EnqueueCoalescer("test", jobs -> {
            jobs.forEach(j -> JobRules.checkId(j.id()));
            jobs.forEach(j -> stored.add(j.id()));
            return answer(jobs, 20);
        });
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> callers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                String id = t == 3 ? "not valid" : "ok-" + t;
                callers.add(pool.submit(() -> {
                    try {
                        return coalescer.submit(NewJob.delayed("t", id, "{}", 1_000, 3)).job().id();
                    } catch (IllegalArgumentException refused) {
                        return "refused: " + refused.getMessage();
                    }
                }));
            }
            for (int t = 0; t < 8; t++) {
                if (t == 3) {
                    assertThat(callers.get(t).get()).startsWith("refused: job id 'not valid' is invalid");
                } else {
                    assertThat(callers.get(t).get()).isEqualTo("ok-" + t);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(stored).containsExactlyInAnyOrder("ok-0", "ok-1", "ok-2", "ok-4", "ok-5", "ok-6", "ok-7");
    }

    /**
     * A caller whose job is in a batch another caller is sending waits parked. It used to take the free leader slot,
     * find nothing to send and come straight back, round after round, burning a core for the whole round trip.
     */
    @Test
    void callersWaitingForABatchInFlightUseNoCpu() throws Exception {
        long batchMs = 400;
        CountDownLatch inFlight = new CountDownLatch(1);
        EnqueueCoalescer coalescer = new EnqueueCoalescer("test", jobs -> {
            inFlight.countDown();
            return answer(jobs, batchMs);
        });
        int callers = 6;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<Long>> cpu = new ArrayList<>();
            CountDownLatch allQueued = new CountDownLatch(callers);
            for (int t = 0; t < callers; t++) {
                String id = "j" + t;
                cpu.add(pool.submit(() -> {
                    long id0 = Thread.currentThread().getId();
                    long before = THREADS.getThreadCpuTime(id0);
                    allQueued.countDown();
                    allQueued.await();
                    coalescer.submit(NewJob.delayed("t", id, "{}", 1_000, 3));
                    return THREADS.getThreadCpuTime(id0) - before;
                }));
            }
            assertThat(inFlight.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            long total = 0;
            for (Future<Long> f : cpu) {
                total += f.get();
            }
            // Parked callers wake at most once a millisecond to check: a few ms of CPU in all. Spinning callers used
            // a core between them for the whole time the batches were in flight (at least 400 ms).
            assertThat(total / 1_000_000).as("CPU ms of %d callers while batches were in flight", callers)
                    .isLessThan(batchMs / 4);
        } finally {
            pool.shutdownNow();
        }
    }
}
