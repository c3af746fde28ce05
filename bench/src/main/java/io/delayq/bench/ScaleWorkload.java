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
 * W5: does delayq's cost per operation stay flat as a topic grows? One topic is filled with pending jobs due 1–2 h
 * ahead (batch enqueue, 8 producers) up to each size in turn, and at each size one thread times single enqueues,
 * reserves of one due job, and acks. Client µs/op includes the loopback round trip; Redis µs/op is the script's own
 * time from {@code INFO commandstats}, the figure that shows O(log N).
 *
 * <p>The fill is cumulative (1M, then on to 8M, then on to 10M), so the full run fills 10M jobs, not 19M. 8M is a
 * control: Redis grows a HASH's or ZSET's dict when it reaches 2^23 = 8,388,608 entries and then rehashes it
 * incrementally, one bucket per command on that key, so at 10M both dicts of the partition are only ~20 % through
 * their rehash, and every lookup probes two tables; 8M shows the same structures before that step.
 */
public final class ScaleWorkload {
    private static final long HOUR = 3_600_000;
    /** A size whose fill would take longer than this (projected from the fill so far) is skipped. */
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
        warmUp();
        redis.reset();
        List<Integer> done = new ArrayList<>();
        String topic = "bench-w5-" + UUID.randomUUID().toString().substring(0, 8);
        try (JobStore store = DelayqStores.connect(redis.uri())) {
            long mem0 = redis.usedMemory();
            int filled = 0;
            long timedJobs = 0; // jobs the timings at smaller sizes added (pending, and finished with history)
            double fillRate = Double.NaN;
            for (int n : sizes.w5Sizes()) {
                double projectedMin = (n - filled) / fillRate / 60.0;
                if (!Double.isNaN(fillRate) && projectedMin > MAX_FILL_MINUTES) {
                    String why = String.format("%s: skipped: filling on to it would take ~%.0f min at the %,.0f jobs/s "
                            + "measured so far (budget %d min)", row(n), projectedMin, fillRate, MAX_FILL_MINUTES);
                    results.note("W5", why);
                    log.println("  W5 " + why);
                    continue;
                }
                Map<String, Double> m = new LinkedHashMap<>();
                fillRate = fill(store, topic, filled, n);
                filled = n;
                m.put("pending", (double) n);
                m.put("fill_jobs_per_s", fillRate);
                m.put("bytes_per_job", (redis.usedMemory() - mem0) / (double) (n + timedJobs));
                int ops = Math.min(sizes.w5Ops(), n);
                time(store, topic, "s" + n + "-", ops, m);
                timedJobs += 2L * ops;
                results.add(new Results.Run("W5", row(n), 1, m, Map.of()));
                log.printf("  W5 %,d pending: fill %,.0f jobs/s, enqueue %.1f µs/op (Redis %.1f), reserve %.1f µs/op (Redis %.1f), ack %.1f µs/op, %.0f B/job%n",
                        n, m.get("fill_jobs_per_s"), m.get("enqueue_us"), m.get("enqueue_redis_us"), m.get("reserve_us"),
                        m.get("reserve_redis_us"), m.get("ack_us"), m.get("bytes_per_job"));
                done.add(n);
            }
        }
        redis.flushAll();
        if (done.size() >= 2) {
            String small = row(done.get(0));
            for (int large : done.subList(1, done.size())) {
                for (String[] k : List.of(new String[]{"enqueue_us", "enqueue"}, new String[]{"enqueue_redis_us", "enqueue (Redis side)"},
                        new String[]{"reserve_us", "reserve"}, new String[]{"reserve_redis_us", "reserve (Redis side)"},
                        new String[]{"ack_us", "ack"})) {
                    double a = Stats.Summary.of(results.values("W5", small, k[0])).median();
                    double b = Stats.Summary.of(results.values("W5", row(large), k[0])).median();
                    results.note("W5", String.format("%s µs/op at %,d pending ÷ at %,d pending: %.2f×", k[1], large,
                            done.get(0), b / a));
                }
            }
        }
    }

    static String row(int n) {
        return String.format("delayq @ %,d pending", n);
    }

    /** An untimed fill and timing at a small size, so that the measured sizes do not pay for the JIT. */
    private void warmUp() throws Exception {
        redis.reset();
        int n = Math.min(5_000, sizes.w5Sizes().get(0));
        try (JobStore store = DelayqStores.connect(redis.uri())) {
            String topic = "bench-w5-warm-" + UUID.randomUUID().toString().substring(0, 8);
            fill(store, topic, 0, n);
            time(store, topic, "w-", Math.min(sizes.w5Ops(), n), new LinkedHashMap<>());
        }
        redis.flushAll();
    }

    /** Adds pending jobs {@code p<from>} … {@code p<to - 1>}. @return the fill rate, jobs/s */
    private double fill(JobStore store, String topic, int from, int to) throws Exception {
        AtomicLong filled = new AtomicLong();
        AtomicLong retries = new AtomicLong();
        int n = to - from;
        long step = Math.max(n / 10, 1);
        long t0 = System.nanoTime();
        Workloads.produce(n, (a, b) -> {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            List<NewJob> batch = new ArrayList<>(Sizes.BULK);
            for (int i = a; i < b; i++) {
                batch.add(NewJob.delayed(topic, "p" + (from + i), Payloads.job(from + i), HOUR + rnd.nextLong(HOUR), 10));
                if (batch.size() == Sizes.BULK || i == b - 1) {
                    enqueueWithRetry(store, batch, retries);
                    long before = filled.getAndAdd(batch.size());
                    if ((before + batch.size()) / step != before / step && n >= 1_000_000) {
                        log.printf("    filled %,d of %,d%n", from + before + batch.size(), to);
                    }
                    batch = new ArrayList<>(Sizes.BULK);
                }
            }
        });
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (retries.get() > 0) {
            results.note("W5", String.format("%s: %d fill batch(es) timed out and were sent again (idempotent)", row(to), retries.get()));
        }
        return n / seconds;
    }

    /** Times {@code ops} single enqueues, reserves of one due job and acks, from one thread, into {@code m}. */
    private void time(JobStore store, String topic, String prefix, int ops, Map<String, Double> m) {
        String json = Payloads.job(0);
        redis.resetStats();
        RedisInfo before = redis.info();
        long t = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            store.enqueue(NewJob.delayed(topic, prefix + "e" + i, json, HOUR + ThreadLocalRandom.current().nextLong(HOUR), 10));
        }
        m.put("enqueue_us", (System.nanoTime() - t) / 1e3 / ops);
        m.put("enqueue_redis_us", scriptUsec(redis.info().costSince(before)) / ops);

        // due jobs among the pending ones, then reserve them one by one, then ack them one by one
        long now = store.now();
        List<NewJob> due = new ArrayList<>(Sizes.BULK);
        for (int i = 0; i < ops; i++) {
            due.add(NewJob.at(topic, prefix + "d" + i, json, now - 60_000 + i, 10));
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
