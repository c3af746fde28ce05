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
 * The shared workload driver (W1 single + bulk, W2 precision, W3 drain, memory, server cost), the same for every Java
 * adapter and for both servers, following PEERS.md's methodology: 8 producers on contiguous slices, every add
 * acknowledged before the next; consumers of concurrency 8; an empty store before each run (Redis: FLUSHALL and
 * CONFIG RESETSTAT; PostgreSQL: a new database); receipt times from the consumer's {@code currentTimeMillis()}.
 * Results go to the backend's tables ({@link Backend#tablePrefix()}: W1… for Redis, PG-W1… for PostgreSQL).
 */
public final class Workloads {
    private final Backend backend;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;
    private final String prefix;

    public Workloads(Backend backend, Sizes sizes, Results results, PrintStream log) {
        this.backend = backend;
        this.sizes = sizes;
        this.results = results;
        this.log = log;
        this.prefix = backend.tablePrefix();
    }

    /** Untimed warm-up of a fresh implementation: single adds, bulk adds, a drain. Leaves the store empty. */
    public void warmUp(Impl impl) throws Exception {
        long t = System.currentTimeMillis();
        enqueueRun(impl, sizes.warmupSingle(), false);
        if (impl.bulkPath() != null) {
            enqueueRun(impl, sizes.warmupBulk(), true);
        }
        drainRun(impl, sizes.warmupDrain());
        backend.clear();
        log.printf("  warm-up of %s done in %.1f s (untimed)%n", impl.label(), (System.currentTimeMillis() - t) / 1000.0);
    }

    /** Leaves nothing behind in the store (PostgreSQL: drops the last run's database). */
    public void clear() {
        backend.clear();
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
            bulk.cost.intoBulk(m, sizes.w1Jobs());
            results.label(prefix + "W1", impl.label(), "bulk_path", impl.bulkPath());
        } else {
            results.label(prefix + "W1", impl.label(), "bulk_path", "none");
        }
        results.add(new Results.Run(prefix + "W1", impl.label(), rep, m, cmds));
        log.printf("  %sW1 %s rep %d: single %,.0f jobs/s%s, %.0f B/job, %s%n", prefix, impl.label(), rep,
                m.get("jobs_per_s"), m.containsKey("bulk_jobs_per_s")
                        ? String.format(", bulk %,.0f jobs/s", m.get("bulk_jobs_per_s")) : "",
                m.get("bytes_per_job"), single.cost.brief(m));
    }

    /** W1's bulk path alone (the cluster scaling part): jobs/s, bytes and Redis cost per job. */
    public void w1Bulk(Impl impl, int rep) throws Exception {
        Map<String, Double> m = new LinkedHashMap<>();
        EnqueueOutcome bulk = enqueueRun(impl, sizes.w1Jobs(), true);
        m.put("jobs", (double) sizes.w1Jobs());
        m.put("bulk_jobs_per_s", bulk.jobsPerSecond);
        m.put("bulk_bytes_per_job", bulk.bytesPerJob);
        bulk.cost.intoBulk(m, sizes.w1Jobs());
        results.add(new Results.Run(prefix + "W1", impl.label(), rep, m, bulk.cost.commands()));
        log.printf("  %sW1 %s rep %d: bulk %,.0f jobs/s, %.0f B/job%n", prefix, impl.label(), rep,
                bulk.jobsPerSecond, bulk.bytesPerJob);
    }

    private record EnqueueOutcome(double jobsPerSecond, double bytesPerJob, Backend.Cost cost) {
    }

    private EnqueueOutcome enqueueRun(Impl impl, int n, boolean bulk) throws Exception {
        String where = backend.fresh(impl.name());
        try (QueueAdapter q = impl.open(where, queueName(impl))) {
            long mem0 = backend.storedBytes();
            Backend.Mark before = backend.mark();
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
            Backend.Cost cost = before.cost();
            long mem1 = backend.storedBytes();
            return new EnqueueOutcome(n / seconds, (mem1 - mem0) / (double) n, cost);
        }
    }

    /** W2: jobs due over the next span while consumers run; lateness against the intended due time. */
    public void w2(Impl impl, int rep) throws Exception {
        int n = sizes.w2Jobs();
        String where = backend.fresh(impl.name());
        Receipts receipts = new Receipts(n);
        Map<String, Double> m = new LinkedHashMap<>();
        Backend.Cost cost;
        try (QueueAdapter q = impl.open(where, queueName(impl))) {
            try (AutoCloseable consumers = q.startConsumers(Sizes.CONSUMERS, Gate.open(), receipts)) {
                Thread.sleep(sizes.w2IdleMs());
                Backend.Mark before = backend.mark();
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
                cost = before.cost();
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
            results.note(prefix + "W2", String.format("%s rep %d: %d job(s) received more than 1 ms before their intended due time",
                    impl.label(), rep, receipts.early(1)));
        }
        cost.into(m, n);
        results.add(new Results.Run(prefix + "W2", impl.label(), rep, m, cost.commands()));
        results.addLateness(prefix + "W2", impl.label(), late);
        log.printf("  %sW2 %s rep %d: p50 %.0f p99 %.0f p99.9 %.0f max %.0f ms, lost %d dup %d, %s%n",
                prefix, impl.label(), rep, m.get("p50"), m.get("p99"), m.get("p999"), m.get("max"), receipts.lost(),
                receipts.duplicated(), cost.brief(m));
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
        results.add(new Results.Run(prefix + "W3", impl.label(), rep, m, d.cost.commands()));
        log.printf("  %sW3 %s rep %d: drain %,.0f jobs/s, end-to-end %,.0f jobs/s, enqueue %,.0f jobs/s, lost %d dup %d, %s%n",
                prefix, impl.label(), rep, d.drain, d.e2e, d.enqueue, d.lost, d.dup, d.cost.brief(m));
    }

    private record DrainOutcome(double drain, double e2e, double enqueue, int lost, int dup, Backend.Cost cost) {
    }

    private DrainOutcome drainRun(Impl impl, int n) throws Exception {
        String where = backend.fresh(impl.name());
        Receipts receipts = new Receipts(n);
        Gate gate = Gate.closed();
        try (QueueAdapter q = impl.open(where, queueName(impl));
             AutoCloseable consumers = q.startConsumers(Sizes.CONSUMERS, gate, receipts)) {
            Backend.Mark before = backend.mark();
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
            Backend.Cost cost = before.cost();
            Thread.sleep(sizes.dupGraceMs());
            if (!all) {
                log.printf("  %sW3 %s: only %,d of %,d jobs arrived before the timeout%n", prefix, impl.label(), receipts.distinct(), n);
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
