package io.delayq.bench;

import io.delayq.bench.adapters.DelayqStores;
import io.delayq.core.Delivery;
import io.delayq.core.JobStore;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreException;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W5: does delayq's cost per operation stay flat as a topic grows? For each size, fills one topic with that many
 * pending jobs due 1–2 h ahead (batch enqueue, 8 producers), then times from one thread: single enqueues, reserves of
 * one due job, and acks. Client µs/op includes the loopback round trip; Redis µs/op is the script's own time from
 * {@code INFO commandstats}, the figure that shows O(log N).
 */
public final class ScaleWorkload {
    private static final long HOUR = 3_600_000;
    /** A size whose fill would take longer than this (projected from the previous size) is skipped. */
    static final int MAX_FILL_MINUTES = 5;
    private final BenchRedis redis;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;

    public ScaleWorkload(BenchRedis redis, Sizes sizes, Results results, PrintStream log) {
        this.redis = redis;
        this.sizes = sizes;
        this.results = results;
        this.log = log;
    }

    public void run() throws Exception {
        measure(Math.min(5_000, sizes.w5Sizes().get(0)), false); // untimed warm-up of the store and the JIT
        List<Integer> done = new ArrayList<>();
        double fillRate = Double.NaN;
        for (int n : sizes.w5Sizes()) {
            double projectedMin = n / fillRate / 60.0;
            if (!Double.isNaN(fillRate) && projectedMin > MAX_FILL_MINUTES) {
                String why = String.format("%s: skipped: filling it would take ~%.0f min at the %,.0f jobs/s measured at %s "
                        + "(budget %d min)", row(n), projectedMin, fillRate, row(done.get(done.size() - 1)), MAX_FILL_MINUTES);
                results.note("W5", why);
                log.println("  W5 " + why);
                continue;
            }
            fillRate = measure(n, true);
            done.add(n);
        }
        if (done.size() >= 2) {
            String small = row(done.get(0));
            String large = row(done.get(done.size() - 1));
            for (String[] k : List.of(new String[]{"enqueue_us", "enqueue"}, new String[]{"enqueue_redis_us", "enqueue (Redis side)"},
                    new String[]{"reserve_us", "reserve"}, new String[]{"reserve_redis_us", "reserve (Redis side)"},
                    new String[]{"ack_us", "ack"})) {
                double a = Stats.Summary.of(results.values("W5", small, k[0])).median();
                double b = Stats.Summary.of(results.values("W5", large, k[0])).median();
                results.note("W5", String.format("%s µs/op at %s ÷ at %s: %.2f×", k[1], large.replace("delayq @ ", ""),
                        small.replace("delayq @ ", ""), b / a));
            }
        }
    }

    static String row(int n) {
        return String.format("delayq @ %,d pending", n);
    }

    /** @return the fill rate, jobs/s */
    private double measure(int n, boolean record) throws Exception {
        redis.reset();
        String topic = "bench-w5-" + UUID.randomUUID().toString().substring(0, 8);
        String json = Payloads.job(0);
        Map<String, Double> m = new LinkedHashMap<>();
        try (JobStore store = DelayqStores.connect(redis.uri())) {
            long mem0 = redis.usedMemory();
            AtomicLong filled = new AtomicLong();
            AtomicLong retries = new AtomicLong();
            long step = Math.max(n / 10, 1);
            long t0 = System.nanoTime();
            Workloads.produce(n, (from, to) -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                List<NewJob> batch = new ArrayList<>(Sizes.BULK);
                for (int id = from; id < to; id++) {
                    batch.add(NewJob.delayed(topic, "p" + id, Payloads.job(id), HOUR + rnd.nextLong(HOUR), 10));
                    if (batch.size() == Sizes.BULK || id == to - 1) {
                        enqueueWithRetry(store, batch, retries);
                        long before = filled.getAndAdd(batch.size());
                        if ((before + batch.size()) / step != before / step && n >= 1_000_000) {
                            log.printf("    filled %,d of %,d%n", before + batch.size(), n);
                        }
                        batch = new ArrayList<>(Sizes.BULK);
                    }
                }
            });
            double fillSeconds = (System.nanoTime() - t0) / 1e9;
            long mem1 = redis.usedMemory();
            if (retries.get() > 0) {
                results.note("W5", String.format("%s: %d fill batch(es) timed out and were sent again (idempotent)", row(n), retries.get()));
            }
            m.put("pending", (double) n);
            m.put("fill_jobs_per_s", n / fillSeconds);
            m.put("bytes_per_job", (mem1 - mem0) / (double) n);
            int ops = Math.min(sizes.w5Ops(), n);

            // single enqueues into the full topic
            redis.resetStats();
            RedisInfo before = redis.info();
            long t = System.nanoTime();
            for (int i = 0; i < ops; i++) {
                store.enqueue(NewJob.delayed(topic, "e" + i, json, HOUR + ThreadLocalRandom.current().nextLong(HOUR), 10));
            }
            m.put("enqueue_us", (System.nanoTime() - t) / 1e3 / ops);
            m.put("enqueue_redis_us", scriptUsec(redis.info().costSince(before)) / ops);

            // due jobs among the pending ones, then reserve them one by one, then ack them one by one
            long now = store.now();
            List<NewJob> due = new ArrayList<>(Sizes.BULK);
            for (int i = 0; i < ops; i++) {
                due.add(NewJob.at(topic, "d" + i, json, now - 60_000 + i, 10));
                if (due.size() == Sizes.BULK || i == ops - 1) {
                    store.enqueue(due);
                    due = new ArrayList<>(Sizes.BULK);
                }
            }
            List<LeaseRef> leases = new ArrayList<>(ops);
            redis.resetStats();
            before = redis.info();
            t = System.nanoTime();
            for (int i = 0; i < ops; i++) {
                ReserveResult r = store.reserve(topic, Delivery.PULL, 1, 60_000);
                if (r.leases().isEmpty()) {
                    throw new IllegalStateException("W5: reserve found no due job after " + i + " of " + ops);
                }
                leases.add(LeaseRef.of(r.leases().get(0)));
            }
            m.put("reserve_us", (System.nanoTime() - t) / 1e3 / ops);
            m.put("reserve_redis_us", scriptUsec(redis.info().costSince(before)) / ops);
            redis.resetStats();
            t = System.nanoTime();
            for (LeaseRef l : leases) {
                store.ack(List.of(l));
            }
            m.put("ack_us", (System.nanoTime() - t) / 1e3 / ops);
        }
        redis.flushAll();
        if (!record) {
            return m.get("fill_jobs_per_s");
        }
        results.add(new Results.Run("W5", row(n), 1, m, Map.of()));
        log.printf("  W5 %,d pending: fill %,.0f jobs/s, enqueue %.1f µs/op (Redis %.1f), reserve %.1f µs/op (Redis %.1f), ack %.1f µs/op, %.0f B/job%n",
                n, m.get("fill_jobs_per_s"), m.get("enqueue_us"), m.get("enqueue_redis_us"), m.get("reserve_us"),
                m.get("reserve_redis_us"), m.get("ack_us"), m.get("bytes_per_job"));
        return m.get("fill_jobs_per_s");
    }

    /**
     * The fill is not what W5 times, and on a busy 2-core machine a 1,000-job batch can outlast the client's 2 s read
     * timeout; enqueue is idempotent per id, so the same batch is simply sent again.
     */
    private static void enqueueWithRetry(JobStore store, List<NewJob> batch, AtomicLong retries) {
        for (int attempt = 1; ; attempt++) {
            try {
                store.enqueue(batch);
                return;
            } catch (StoreException e) {
                if (attempt == 3) {
                    throw e;
                }
                retries.incrementAndGet();
            }
        }
    }

    /** Redis time of the operations: the scripts' own usec (their inner calls are inside it), else every command's. */
    static double scriptUsec(RedisInfo.Cost cost) {
        long scripts = 0;
        long all = 0;
        for (var e : cost.commands().entrySet()) {
            all += e.getValue()[1];
            if (e.getKey().equals("evalsha") || e.getKey().equals("eval") || e.getKey().startsWith("fcall")) {
                scripts += e.getValue()[1];
            }
        }
        return scripts > 0 ? scripts : all;
    }
}
