package io.delayq.bench;

import io.delayq.bench.adapters.DelayqImpl;
import io.delayq.postgres.PostgresStoreOptions;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The PostgreSQL churn for delayq: jobs enqueued at a fixed rate (single adds, delay uniform in [0, 5 s]; 1 s at tiny size) for
 * {@link Sizes#churnSeconds()} while consumers deliver and ack them, so the jobs table sees a steady stream of inserts,
 * updates and deletes; a {@link ChurnSampler} watches its tuples and size. The store runs with a finished-job
 * retention of {@value #RETENTION_S} s (its default is 24 h), so the reaper deletes rows during the run.
 */
public final class ChurnWorkload {
    static final long RETENTION_S = 10;
    static final String TABLE = "public.delayq_jobs";

    private final BenchPostgres pg;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;

    public ChurnWorkload(BenchPostgres pg, Sizes sizes, Results results, PrintStream log) {
        this.pg = pg;
        this.sizes = sizes;
        this.results = results;
        this.log = log;
    }

    public void run() throws Exception {
        Impl impl = new DelayqImpl(PostgresStoreOptions.defaults().withFinishedRetention(Duration.ofSeconds(RETENTION_S)));
        int rate = sizes.churnRate();
        int n = (int) Math.max(1, rate * sizes.churnSeconds());
        String db = pg.freshDatabase("delayq-churn");
        Receipts receipts = new Receipts(n);
        Map<String, Double> m = new LinkedHashMap<>();
        try (QueueAdapter q = impl.open(pg.jdbcUrl(db), "bench-churn");
             AutoCloseable consumers = q.startConsumers(Sizes.CONSUMERS, Gate.open(), receipts);
             ChurnSampler sampler = new ChurnSampler(pg, db, TABLE, sizes.churnSeconds() * 1000)) {
            long t0 = System.currentTimeMillis();
            paced(n, rate, t0, sizes.churnMaxDelayMs(), (id, delay) -> {
                long now = System.currentTimeMillis();
                receipts.due[id] = now + delay;
                q.enqueue(id, Payloads.job(id), delay, now + delay);
            });
            double seconds = (System.currentTimeMillis() - t0) / 1000.0;
            m.putAll(sampler.finish(n));
            m.put("rate_jobs_per_s", n / seconds);
            long maxDue = Long.MIN_VALUE;
            for (long d : receipts.due) {
                maxDue = Math.max(maxDue, d);
            }
            receipts.awaitAll(maxDue + sizes.lostAfterMs() - System.currentTimeMillis());
            Thread.sleep(sizes.dupGraceMs());
        } finally {
            pg.dropDatabaseOf("delayq-churn");
        }
        long[] late = Stats.sorted(receipts.lateness());
        Workloads.putLateness(m, late);
        m.put("jobs", (double) n);
        m.put("lost", (double) receipts.lost());
        m.put("duplicated", (double) receipts.duplicated());
        results.add(new Results.Run("PG-CHURN", impl.label(), 1, m, Map.of()));
        results.addLateness("PG-CHURN", impl.label(), late);
        log.println("  PG-CHURN " + impl.label() + ": " + brief(m));
    }

    /** The churn's figures in one line, from a quarter of the steady phase to its end. */
    public static String brief(Map<String, Double> m) {
        return String.format("%,.0f jobs/s for %,.0f jobs; live %,.0f → %,.0f, dead %,.0f → %,.0f, table "
                        + "%,.0f → %,.0f kB (max %,.0f), %.0f autovacuum(s); p99 %.0f ms, lost %.0f dup %.0f",
                m.get("rate_jobs_per_s"), m.get("jobs"), m.get("live_quarter"), m.get("live_end"),
                m.get("dead_quarter"), m.get("dead_end"), m.get("table_kb_quarter"), m.get("table_kb_end"),
                m.get("table_kb_max"), m.get("autovacuums"), m.get("p99"), m.get("lost"), m.get("duplicated"));
    }

    /** One paced add: job {@code id} with {@code delayMs}. */
    @FunctionalInterface
    interface Add {
        void add(int id, long delayMs) throws Exception;
    }

    /**
     * {@link Sizes#PRODUCERS} threads add jobs 0..n-1 interleaved (thread p: p, p+8, …), job {@code id} at
     * {@code t0 + id / rate}; a producer that falls behind adds at once until it has caught up.
     */
    static void paced(int n, int rate, long t0, long maxDelayMs, Add add) throws Exception {
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int p = 0; p < Sizes.PRODUCERS; p++) {
            int first = p;
            Thread t = new Thread(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                try {
                    for (int id = first; id < n && failure.get() == null; id += Sizes.PRODUCERS) {
                        long at = t0 + (long) id * 1000 / rate;
                        long wait;
                        while ((wait = at - System.currentTimeMillis()) > 0) {
                            LockSupport.parkNanos(wait * 1_000_000L);
                        }
                        add.add(id, rnd.nextLong(maxDelayMs + 1));
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "churn-producer-" + p);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a churn producer failed: " + failure.get(), failure.get());
        }
    }
}
