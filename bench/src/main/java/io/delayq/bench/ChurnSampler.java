package io.delayq.bench;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Watches one implementation's jobs table during the churn: {@code n_live_tup}, {@code n_dead_tup},
 * {@code autovacuum_count} (pg_stat_user_tables) and {@code pg_total_relation_size}, sampled from the start to the
 * end of the steady phase on its own connection. Cumulative statistics reach pg_stat_user_tables when backends flush
 * them (at least once a second while they work), so a sample can lag by about a second.
 */
public final class ChurnSampler implements AutoCloseable {
    private final BenchPostgres pg;
    private final String database;
    private final String table;
    private final long everyMs;
    private final Connection connection;
    private final List<long[]> samples = new ArrayList<>(); // {at ms, live, dead, bytes, autovacuums, vacuums}
    private final Thread thread;
    private final BenchPostgres.Mark mark;
    private final long startedAt;
    private volatile boolean running = true;
    private volatile Exception failure;

    /** Starts sampling now (the first sample is taken before this returns). */
    public ChurnSampler(BenchPostgres pg, String database, String table, long durationMs) throws Exception {
        this.pg = pg;
        this.database = database;
        this.table = table;
        this.everyMs = Math.max(1_000, durationMs / 60);
        this.connection = pg.connect(database);
        this.mark = pg.mark(null);
        this.startedAt = System.currentTimeMillis();
        sample();
        this.thread = new Thread(this::loop, "bench-churn-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (running) {
            try {
                Thread.sleep(everyMs);
                if (running) {
                    sample();
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                failure = e;
                return;
            }
        }
    }

    private synchronized void sample() throws Exception {
        BenchPostgres.TableStats s = BenchPostgres.tableStats(connection, table);
        samples.add(new long[]{System.currentTimeMillis() - startedAt, s.liveTuples(), s.deadTuples(), s.bytes(),
                s.autovacuums(), s.vacuums()});
    }

    /**
     * Stops sampling (with a last sample now) and returns the figures: live and dead tuples and size at the start,
     * after a quarter of the steady phase and at its end, the largest size seen, autovacuums of the table, the size of
     * all the database's tables at the end, and PostgreSQL's CPU and WAL per job over the phase.
     */
    public Map<String, Double> finish(long jobs) throws Exception {
        running = false;
        thread.interrupt();
        thread.join(10_000);
        if (failure != null) {
            throw new IllegalStateException("sampling " + table + " failed: " + failure.getMessage(), failure);
        }
        sample();
        Map<String, Double> m = new LinkedHashMap<>();
        synchronized (this) {
            long[] first = samples.get(0);
            long[] last = samples.get(samples.size() - 1);
            long quarterAt = last[0] / 4;
            long[] quarter = first;
            for (long[] s : samples) {
                if (Math.abs(s[0] - quarterAt) < Math.abs(quarter[0] - quarterAt)) {
                    quarter = s;
                }
            }
            long max = 0;
            for (long[] s : samples) {
                max = Math.max(max, s[3]);
            }
            put(m, "start", first);
            put(m, "quarter", quarter);
            put(m, "end", last);
            m.put("table_kb_max", max / 1024.0);
            m.put("autovacuums", (double) (last[4] - first[4]));
            m.put("vacuums", (double) (last[5] - first[5]));
            m.put("samples", (double) samples.size());
        }
        m.put("all_tables_kb_end", pg.storedBytes(database) / 1024.0);
        pg.since(mark).into(m, "", jobs);
        return m;
    }

    private static void put(Map<String, Double> m, String when, long[] s) {
        m.put("live_" + when, (double) s[1]);
        m.put("dead_" + when, (double) s[2]);
        m.put("table_kb_" + when, s[3] / 1024.0);
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            connection.close();
        } catch (Exception ignored) {
            // the database is dropped next
        }
    }
}
