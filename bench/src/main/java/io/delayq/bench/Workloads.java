package io.delayq.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The shared workload driver (W1 single + bulk, W2 precision, W3 drain, memory, Redis cost), the same for every Java
 * adapter, following PEERS.md's methodology: 8 producers on contiguous slices, every add acknowledged before the
 * next; consumers of concurrency 8; FLUSHALL and CONFIG RESETSTAT before each run; receipt times from the consumer's
 * {@code currentTimeMillis()}.
 */
public final class Workloads {
    private final BenchRedis redis;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;

    public Workloads(BenchRedis redis, Sizes sizes, Results results, PrintStream log) {
        this.redis = redis;
        this.sizes = sizes;
        this.results = results;
        this.log = log;
    }

    /** Untimed warm-up of a fresh implementation: single adds, bulk adds, a drain. Leaves Redis empty. */
    public void warmUp(Impl impl) throws Exception {
        long t = System.currentTimeMillis();
        enqueueRun(impl, sizes.warmupSingle(), false);
        if (impl.bulkPath() != null) {
            enqueueRun(impl, sizes.warmupBulk(), true);
        }
        drainRun(impl, sizes.warmupDrain());
        redis.flushAll();
        log.printf("  warm-up of %s done in %.1f s (untimed)%n", impl.label(), (System.currentTimeMillis() - t) / 1000.0);
    }

    /** W1: single adds, then the bulk path; also the memory per pending job of each. */
    public void w1(Impl impl, int rep) throws Exception {
        Map<String, Double> m = new LinkedHashMap<>();
        Map<String, long[]> cmds = new LinkedHashMap<>();
        EnqueueOutcome single = enqueueRun(impl, sizes.w1Jobs(), false);
        m.put("jobs", (double) sizes.w1Jobs());
        m.put("jobs_per_s", single.jobsPerSecond);
        m.put("bytes_per_job", single.bytesPerJob);
        single.cost.into(m, sizes.w1Jobs());
        cmds.putAll(single.cost.commands());
        if (impl.bulkPath() != null) {
            EnqueueOutcome bulk = enqueueRun(impl, sizes.w1Jobs(), true);
            m.put("bulk_jobs_per_s", bulk.jobsPerSecond);
            m.put("bulk_bytes_per_job", bulk.bytesPerJob);
            m.put("bulk_redis_cpu_ms_per_1k", bulk.cost.cpuMs() / (sizes.w1Jobs() / 1000.0));
            m.put("bulk_redis_calls_per_job", bulk.cost.calls() / (double) sizes.w1Jobs());
            results.label("W1", impl.label(), "bulk_path", impl.bulkPath());
        } else {
            results.label("W1", impl.label(), "bulk_path", "none");
        }
        results.add(new Results.Run("W1", impl.label(), rep, m, cmds));
        log.printf("  W1 %s rep %d: single %,.0f jobs/s%s, %.0f B/job, %.1f calls/job%n", impl.label(), rep,
                m.get("jobs_per_s"), m.containsKey("bulk_jobs_per_s")
                        ? String.format(", bulk %,.0f jobs/s", m.get("bulk_jobs_per_s")) : "",
                m.get("bytes_per_job"), m.get("redis_calls_per_job"));
    }

    private record EnqueueOutcome(double jobsPerSecond, double bytesPerJob, RedisInfo.Cost cost) {
    }

    private EnqueueOutcome enqueueRun(Impl impl, int n, boolean bulk) throws Exception {
        redis.reset();
        try (QueueAdapter q = impl.open(redis.uri(), queueName(impl))) {
            long mem0 = redis.usedMemory();
            redis.resetStats();
            RedisInfo before = redis.info();
            long t0 = System.nanoTime();
            produce(n, (from, to) -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                if (bulk) {
                    List<QueueAdapter.Item> batch = new ArrayList<>(Sizes.BULK);
                    for (int id = from; id < to; id++) {
                        long delay = 10_000 + rnd.nextLong(50_001);
                        batch.add(new QueueAdapter.Item(id, Payloads.job(id), delay, System.currentTimeMillis() + delay));
                        if (batch.size() == Sizes.BULK || id == to - 1) {
                            q.enqueueBulk(batch);
                            batch = new ArrayList<>(Sizes.BULK);
                        }
                    }
                } else {
                    for (int id = from; id < to; id++) {
                        long delay = 10_000 + rnd.nextLong(50_001);
                        q.enqueue(id, Payloads.job(id), delay, System.currentTimeMillis() + delay);
                    }
                }
            });
            double seconds = (System.nanoTime() - t0) / 1e9;
            RedisInfo after = redis.info();
            long mem1 = redis.usedMemory();
            return new EnqueueOutcome(n / seconds, (mem1 - mem0) / (double) n, after.costSince(before));
        }
    }

    /** W2: jobs due over the next span while consumers run; lateness against the intended due time. */
    public void w2(Impl impl, int rep) throws Exception {
        int n = sizes.w2Jobs();
        redis.reset();
        Receipts receipts = new Receipts(n);
        Map<String, Double> m = new LinkedHashMap<>();
        RedisInfo.Cost cost;
        try (QueueAdapter q = impl.open(redis.uri(), queueName(impl))) {
            try (AutoCloseable consumers = q.startConsumers(Sizes.CONSUMERS, Gate.open(), receipts)) {
                Thread.sleep(sizes.w2IdleMs());
                redis.resetStats();
                RedisInfo before = redis.info();
                long t0 = System.nanoTime();
                produce(n, (from, to) -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    for (int id = from; id < to; id++) {
                        long delay = rnd.nextLong(sizes.w2SpanMs() + 1);
                        long now = System.currentTimeMillis();
                        receipts.due[id] = now + delay;
                        q.enqueue(id, Payloads.job(id), delay, now + delay);
                    }
                });
                double enqueueSeconds = (System.nanoTime() - t0) / 1e9;
                long maxDue = Long.MIN_VALUE;
                long minDue = Long.MAX_VALUE;
                for (long d : receipts.due) {
                    maxDue = Math.max(maxDue, d);
                    minDue = Math.min(minDue, d);
                }
                receipts.awaitAll(maxDue + sizes.lostAfterMs() - System.currentTimeMillis());
                cost = redis.info().costSince(before);
                Thread.sleep(sizes.dupGraceMs());
                m.put("enqueue_jobs_per_s", n / enqueueSeconds);
                m.put("due_per_s", n / Math.max(0.001, (maxDue - minDue) / 1000.0));
            }
        }
        long[] late = Stats.sorted(receipts.lateness());
        putLateness(m, late);
        m.put("jobs", (double) n);
        m.put("lost", (double) receipts.lost());
        m.put("duplicated", (double) receipts.duplicated());
        m.put("early", (double) receipts.early(1));
        if (receipts.early(1) > 0) {
            results.note("W2", String.format("%s rep %d: %d job(s) received more than 1 ms before their intended due time",
                    impl.label(), rep, receipts.early(1)));
        }
        cost.into(m, n);
        results.add(new Results.Run("W2", impl.label(), rep, m, cost.commands()));
        results.addLateness("W2", impl.label(), late);
        log.printf("  W2 %s rep %d: p50 %.0f p99 %.0f p99.9 %.0f max %.0f ms, lost %d dup %d, %.0f Redis CPU ms/1k, %.1f calls/job%n",
                impl.label(), rep, m.get("p50"), m.get("p99"), m.get("p999"), m.get("max"), receipts.lost(),
                receipts.duplicated(), m.get("redis_cpu_ms_per_1k"), m.get("redis_calls_per_job"));
    }

    static void putLateness(Map<String, Double> m, long[] sortedLateness) {
        m.put("p50", Stats.percentile(sortedLateness, 0.50));
        m.put("p90", Stats.percentile(sortedLateness, 0.90));
        m.put("p99", Stats.percentile(sortedLateness, 0.99));
        m.put("p999", Stats.percentile(sortedLateness, 0.999));
        m.put("max", sortedLateness.length == 0 ? Double.NaN : (double) sortedLateness[sortedLateness.length - 1]);
    }

    /** W3: 100k already-due jobs; consumers gated until the last add returned. */
    public void w3(Impl impl, int rep) throws Exception {
        Map<String, Double> m = new LinkedHashMap<>();
        DrainOutcome d = drainRun(impl, sizes.w3Jobs());
        m.put("jobs", (double) sizes.w3Jobs());
        m.put("drain_jobs_per_s", d.drain);
        m.put("e2e_jobs_per_s", d.e2e);
        m.put("enqueue_jobs_per_s", d.enqueue);
        m.put("lost", (double) d.lost);
        m.put("duplicated", (double) d.dup);
        d.cost.into(m, sizes.w3Jobs());
        results.add(new Results.Run("W3", impl.label(), rep, m, d.cost.commands()));
        log.printf("  W3 %s rep %d: drain %,.0f jobs/s, end-to-end %,.0f jobs/s, enqueue %,.0f jobs/s, lost %d dup %d, %.1f calls/job%n",
                impl.label(), rep, d.drain, d.e2e, d.enqueue, d.lost, d.dup, m.get("redis_calls_per_job"));
    }

    private record DrainOutcome(double drain, double e2e, double enqueue, int lost, int dup, RedisInfo.Cost cost) {
    }

    private DrainOutcome drainRun(Impl impl, int n) throws Exception {
        redis.reset();
        Receipts receipts = new Receipts(n);
        Gate gate = Gate.closed();
        try (QueueAdapter q = impl.open(redis.uri(), queueName(impl));
             AutoCloseable consumers = q.startConsumers(Sizes.CONSUMERS, gate, receipts)) {
            redis.resetStats();
            RedisInfo before = redis.info();
            long t0 = System.currentTimeMillis();
            produce(n, (from, to) -> {
                for (int id = from; id < to; id++) {
                    long now = System.currentTimeMillis();
                    receipts.due[id] = now + 1;
                    q.enqueue(id, Payloads.job(id), 1, now + 1);
                }
            });
            long tEnq = System.currentTimeMillis();
            gate.openNow();
            boolean all = receipts.awaitAll(Math.max(120_000, n / 2));
            long last = receipts.lastAt();
            RedisInfo.Cost cost = redis.info().costSince(before);
            Thread.sleep(sizes.dupGraceMs());
            if (!all) {
                log.printf("  W3 %s: only %,d of %,d jobs arrived before the timeout%n", impl.label(), receipts.distinct(), n);
            }
            return new DrainOutcome(receipts.distinct() / Math.max(0.001, (last - tEnq) / 1000.0),
                    receipts.distinct() / Math.max(0.001, (last - t0) / 1000.0),
                    n / Math.max(0.001, (tEnq - t0) / 1000.0), receipts.lost(), receipts.duplicated(), cost);
        }
    }

    static String queueName(Impl impl) {
        return "bench-" + impl.name() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Work of one producer on ids [from, to). */
    @FunctionalInterface
    public interface Slice {
        void run(int from, int to) throws Exception;
    }

    /** Runs {@link Sizes#PRODUCERS} producer threads on contiguous slices of [0, n) and waits for all. */
    public static void produce(int n, Slice slice) throws Exception {
        int p = Sizes.PRODUCERS;
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < p; i++) {
            int from = (int) ((long) n * i / p);
            int to = (int) ((long) n * (i + 1) / p);
            Thread t = new Thread(() -> {
                try {
                    slice.run(from, to);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "producer-" + i);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a producer failed: " + failure.get(), failure.get());
        }
    }
}
