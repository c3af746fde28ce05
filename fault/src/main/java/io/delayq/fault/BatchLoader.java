package io.delayq.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/** Schedules many jobs through {@code /jobs/batch}, 1,000 a request (the default {@code limits.maxBatchSize}). */
final class BatchLoader {
    static final int BATCH = 1_000;

    private BatchLoader() {
    }

    /**
     * Schedules jobs {@code 0 … n-1} made by {@code job}, from {@code threads} producers at once.
     *
     * @return how many were acknowledged
     */
    static int load(ServiceApi api, Ledger ledger, String topic, int n, int threads, IntFunction<JobSpec> job)
            throws Exception {
        ExecutorService producers = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> batches = new ArrayList<>();
            for (int from = 0; from < n; from += BATCH) {
                int start = from;
                int end = Math.min(n, from + BATCH);
                batches.add(producers.submit(() -> {
                    List<JobSpec> jobs = new ArrayList<>(end - start);
                    for (int i = start; i < end; i++) {
                        jobs.add(job.apply(i));
                    }
                    return api.scheduleBatch(ledger, topic, jobs);
                }));
            }
            int acknowledged = 0;
            for (Future<Integer> f : batches) {
                acknowledged += f.get();
            }
            return acknowledged;
        } finally {
            producers.shutdownNow();
        }
    }
}
