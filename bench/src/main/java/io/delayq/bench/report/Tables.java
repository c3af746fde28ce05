package io.delayq.bench.report;

import io.delayq.bench.Results;
import io.delayq.bench.Sizes;
import io.delayq.bench.Stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.delayq.bench.report.Column.Fmt.D1;
import static io.delayq.bench.report.Column.Fmt.D2;
import static io.delayq.bench.report.Column.Fmt.INT;

/** The Markdown tables of a benchmark run, in BENCHMARK.md's order. */
public final class Tables {
    private Tables() {
    }

    public static List<TableSpec> specs(Sizes s) {
        List<Column> lateness = List.of(
                Column.lower("p50 ms", "p50", INT), Column.lower("p90 ms", "p90", INT), Column.lower("p99 ms", "p99", INT),
                Column.lower("p99.9 ms", "p999", INT), Column.lower("max ms", "max", INT));
        List<Column> w2 = new ArrayList<>(lateness);
        w2.addAll(List.of(Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT),
                Column.plain("due/s", "due_per_s", INT),
                Column.lower("Redis CPU ms / 1k jobs", "redis_cpu_ms_per_1k", INT),
                Column.lower("Redis calls / job", "redis_calls_per_job", D1)));
        List<Column> w4 = new ArrayList<>(List.of(Column.higher("enqueue req/s", "enqueue_req_per_s"),
                Column.higher("delivered jobs/s", "delivered_jobs_per_s")));
        w4.addAll(lateness);
        // W4's HTTP enqueue ceiling, measured in the same repetition (the Redis part only: it runs on the bench Redis)
        w4.addAll(1, List.of(Column.plain("ceiling req/s", "ceiling_req_per_s", INT),
                new Column("enqueue ÷ ceiling ↑", "enqueue_of_ceiling", D2, Column.Better.HIGHER, false),
                Column.higher("POST-only req/s", "post_only_req_per_s"),
                new Column("POST-only ÷ ceiling ↑", "post_only_of_ceiling", D2, Column.Better.HIGHER, false)));
        w4.addAll(List.of(Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT),
                Column.lower("Redis CPU ms / 1k jobs", "redis_cpu_ms_per_1k", INT),
                Column.lower("Redis calls / job", "redis_calls_per_job", D1)));
        List<Column> w6 = new ArrayList<>(List.of(Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT),
                Column.lower("recovery ms (kill → first delivery after restart)", "recovery_ms", INT),
                Column.plain("restart to ready ms", "restart_ms", INT)));
        w6.addAll(lateness);
        List<TableSpec> all = new ArrayList<>(List.of(
                new TableSpec("W1", String.format("W1 enqueue (%,d jobs, delay 10–60 s, 8 producers)", s.w1Jobs()),
                        "Single add: every add acknowledged before the producer's next. Bulk: the implementation's batch path, "
                                + "1,000 jobs per call. Redis cost columns are INFO deltas (commands inside scripts counted).",
                        List.of(Column.higher("single add, jobs/s", "jobs_per_s"), Column.label("bulk path", "bulk_path"),
                                Column.higher("bulk, jobs/s", "bulk_jobs_per_s"),
                                Column.lower("Redis CPU ms / 1k jobs (single)", "redis_cpu_ms_per_1k", INT),
                                Column.lower("Redis calls / job (single)", "redis_calls_per_job", D1),
                                Column.lower("Redis CPU ms / 1k jobs (bulk)", "bulk_redis_cpu_ms_per_1k", INT),
                                Column.lower("Redis calls / job (bulk)", "bulk_redis_calls_per_job", D1)), true),
                new TableSpec("MEMORY", "Redis memory per pending job (used_memory delta after W1 / jobs)",
                        "Each job is the same ~219-byte JSON. The floor row is one HASH field (id → record) plus one ZSET "
                                + "entry (id → due) written by redis-benchmark EVALSHA.",
                        List.of(Column.lower("bytes / pending job, single add", "bytes_per_job", INT),
                                Column.lower("bytes / pending job, bulk path", "bulk_bytes_per_job", INT)), true),
                new TableSpec("W2", String.format("W2 timing precision (%,d jobs due over ~%.1f s, consumers running, concurrency 8) — lateness",
                        s.w2Jobs(), s.w2SpanMs() / 1000.0),
                        "Lateness = consumer's clock on receipt − intended due time (producer's clock before the add + delay), "
                                + "ms resolution (0 means < 1 ms).", w2, true),
                new TableSpec("W3", String.format("W3 drain (%,d already-due jobs, consumer concurrency 8)", s.w3Jobs()),
                        "Consumers connected but gated until the last add returned. delayq leases and acks every job "
                                + "(at-least-once); Redisson and the naive design remove on receipt (at-most-once).",
                        List.of(Column.higher("drain jobs/s (enqueue done → last received)", "drain_jobs_per_s"),
                                Column.higher("end-to-end jobs/s (enqueue start → last received)", "e2e_jobs_per_s"),
                                Column.higher("enqueue jobs/s during W3", "enqueue_jobs_per_s"),
                                Column.lower("Redis CPU ms / 1k jobs", "redis_cpu_ms_per_1k", INT),
                                Column.lower("Redis calls / job", "redis_calls_per_job", D1),
                                Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT)), true),
                new TableSpec("W4", String.format("W4 end to end over HTTP (%,d jobs through the service, due over ~%.1f s, HTTP callback receiver)",
                        s.w4Jobs(), s.w4SpanMs() / 1000.0),
                        "The service jar as a child process on the bench Redis; producers POST single jobs; a local HTTP "
                                + "server answers every callback 200. Each repetition runs twice: as is, and with the "
                                + "operators' dashboard open from before the warm-up (3 tabs at the dashboard's own "
                                + "cadence: counters, leases and dead letters every 2 s, history and forecast every "
                                + "15 s; the overview, a topic page, the dead-letters page; bench DashboardLoad).", w4,
                        false),
                new TableSpec("W5", "W5 scale (delayq JobStore, one topic, pending jobs far in the future)",
                        "One topic is filled on to each row's number of pending jobs (batch enqueue, 8 producers, untimed "
                                + "beside the fill rate), then single operations are timed from one thread: client µs/op "
                                + "(includes the loopback round trip) and Redis-side µs/op (commandstats usec per operation). "
                                + "Redis grows a HASH's or ZSET's dict at 2^23 = 8,388,608 entries and then rehashes it one "
                                + "bucket per command on that key: at 10M pending both dicts of the partition are ~20 % into "
                                + "that rehash (every lookup probes two tables); 8M is the control just before it.",
                        List.of(Column.higher("fill jobs/s (batch)", "fill_jobs_per_s"),
                                Column.lower("enqueue µs/op", "enqueue_us", D1),
                                Column.lower("enqueue Redis µs/op", "enqueue_redis_us", D1),
                                Column.lower("reserve µs/op", "reserve_us", D1),
                                Column.lower("reserve Redis µs/op", "reserve_redis_us", D1),
                                Column.lower("ack µs/op", "ack_us", D1),
                                Column.lower("bytes / pending job", "bytes_per_job", INT)), false),
                new TableSpec("W6", String.format("W6 failure (%,d jobs due over ~%.1f s through the service; kill -9 and restart mid-run)",
                        s.w6Jobs(), s.w6SpanMs() / 1000.0),
                        "Like W4's delivery, while the service process is killed with SIGKILL at the middle of the due "
                                + "span and started again. Lost must be 0; duplicates are expected (at-least-once).", w6, false),
                new TableSpec("CEILING", "Physical limit: redis-benchmark on the same Redis (requests/s; 200-byte job body)",
                        "`EVAL HSET+ZADD` is `redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return redis.call('ZADD', KEYS[2], "
                                + "ARGV[3], ARGV[1])` with random ids and scores (`-r 100000000`).",
                        List.of(Column.plain("50 clients, no pipeline", "c50", INT), Column.plain("8 clients, no pipeline", "c8", INT),
                                Column.plain("50 clients, -P 16", "c50p16", INT),
                                Column.plain("p50 latency ms (50 clients, no pipeline)", "p50_ms", Column.Fmt.D3)), false)));
        all.addAll(scale(s));
        all.addAll(pg(s));
        all.add(noisy(s, "", "Redis"));
        all.add(noisy(s, "PG-", "PostgreSQL"));
        all.add(rate("", "Redis"));
        all.add(rate("PG-", "PostgreSQL"));
        return all;
    }

    /** Rate-limit precision on one store (issue 29): deliveries per second at the receiver against the limit. */
    static TableSpec rate(String prefix, String store) {
        return new TableSpec(prefix + "RATE", "Rate-limit precision on " + store + ": three instances, one limited topic,"
                        + " every job due at one instant",
                "Three service instances on one store, the topic's `rateLimit` {perSecond, burst}, all jobs scheduled "
                        + "through the batch endpoint for one instant. Mean = deliveries per whole one-second bin at the "
                        + "receiver after the first (the burst's); worst = the most deliveries in any one-second window. "
                        + "The bound is perSecond + burst; 3 × perSecond would mean a per-instance limit.",
                List.of(Column.plain("limit /s", "per_second_limit", INT), Column.plain("bound", "bound", INT),
                        Column.plain("mean /s", "mean_per_s", D1), Column.lower("worst window", "worst_window", INT),
                        Column.plain("mean ÷ limit", "mean_vs_limit", D2),
                        Column.lower("worst ÷ bound", "worst_vs_bound", D2), Column.plain("jobs", "jobs", INT),
                        Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT)), false);
    }

    /** The noisy neighbour's table on one store: a row for B alone and for each form of A's burst. */
    static TableSpec noisy(Sizes s, String prefix, String store) {
        return new TableSpec(prefix + "NOISY", String.format("Noisy neighbour on %s: tenant A's %,d jobs due at one "
                        + "instant, tenant B's 20 jobs/s", store, s.noisyJobs()),
                "Two tenants of weight 1 on one service (the `tenants:` block), each with its own receiver that answers "
                        + "200 at once; every job scheduled ahead through the batch endpoint with an absolute runAt. B's "
                        + "lateness = receipt − runAt over B's jobs due from the instant until A's last job arrived (for "
                        + "B alone, over the same span without A). A's drain = jobs / (last receipt − instant).",
                List.of(Column.lower("B p50 ms", "b_p50", INT), Column.lower("B p99 ms", "b_p99", INT),
                        Column.lower("B max ms", "b_max", INT), Column.plain("B jobs", "b_jobs", INT),
                        Column.higher("A drain jobs/s", "a_jobs_per_s"),
                        Column.lower("A's last job late ms", "a_last_late_ms", INT),
                        Column.lower("A lost", "a_lost", INT), Column.lower("B lost", "b_lost", INT),
                        Column.lower("dup", "a_duplicated", INT)), false);
    }

    /** The cluster scaling part's tables (ids SCALE-…): one row per configuration, then the ratios. */
    static List<TableSpec> scale(Sizes s) {
        String where = "Every topic has 6 partitions in every row (a multiple of 1, 2 and 3 masters), standalone included, "
                + "so rows differ only in where the partitions live. Every server of a row runs on this machine's cores; "
                + "Redis cost is summed over the row's nodes (CPU over all of them, commands over the masters).";
        return List.of(
                new TableSpec("SCALE-W1", String.format("Cluster scaling: W1 bulk enqueue (%,d jobs, 1,000 per call, 8 producers)",
                        s.w1Jobs()), where,
                        List.of(Column.higher("bulk, jobs/s", "bulk_jobs_per_s"),
                                Column.lower("Redis CPU ms / 1k jobs", "bulk_redis_cpu_ms_per_1k", INT),
                                Column.lower("Redis calls / job", "bulk_redis_calls_per_job", D1),
                                Column.lower("bytes / pending job", "bulk_bytes_per_job", INT)), false),
                new TableSpec("SCALE-W3", String.format("Cluster scaling: W3 drain (%,d already-due jobs, consumer concurrency 8)",
                        s.w3Jobs()), where + " Rows with replicas do not run W3 (their cost is on writes: W1 and W4).",
                        List.of(Column.higher("drain jobs/s", "drain_jobs_per_s"),
                                Column.higher("end-to-end jobs/s", "e2e_jobs_per_s"),
                                Column.lower("Redis CPU ms / 1k jobs", "redis_cpu_ms_per_1k", INT),
                                Column.lower("Redis calls / job", "redis_calls_per_job", D1),
                                Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT)), false),
                new TableSpec("SCALE-W4", String.format("Cluster scaling: W4 through the service (%,d single POSTs due over "
                        + "~%.1f s, then a %,d-job burst)", s.w4Jobs(), s.w4SpanMs() / 1000.0, s.w4Jobs()),
                        where + " One service process (store.cluster, the seed list, partitions 6, minReplicas as the row says).",
                        List.of(Column.higher("enqueue req/s", "enqueue_req_per_s"),
                                Column.higher("delivered jobs/s", "delivered_jobs_per_s"),
                                Column.lower("p99 ms", "p99", INT), Column.lower("lost", "lost", INT),
                                Column.lower("dup", "duplicated", INT),
                                Column.lower("Redis CPU ms / 1k jobs", "redis_cpu_ms_per_1k", INT)), false),
                new TableSpec("SCALE", "Cluster scaling: ratios of medians",
                        "Each row divides one configuration's median by another's. On a machine whose cores all the "
                                + "masters share, adding masters cannot add CPU: read the ratios with bench/README.md's "
                                + "\"Cluster scaling\".",
                        List.of(Column.plain("W1 bulk jobs/s", "W1_bulk_jobs_per_s", D2),
                                Column.plain("W3 drain jobs/s", "W3_drain_jobs_per_s", D2),
                                Column.plain("W4 enqueue req/s", "W4_enqueue_req_per_s", D2),
                                Column.plain("W4 delivered jobs/s", "W4_delivered_jobs_per_s", D2)), false));
    }

    /** The PostgreSQL part's tables (ids PG-…): same workloads, PostgreSQL's cost columns. */
    static List<TableSpec> pg(Sizes s) {
        List<Column> cost = List.of(Column.lower("PostgreSQL CPU ms / 1k jobs", "pg_cpu_ms_per_1k", INT),
                Column.lower("WAL bytes / job", "pg_wal_bytes_per_job", INT));
        List<Column> lateness = List.of(
                Column.lower("p50 ms", "p50", INT), Column.lower("p90 ms", "p90", INT), Column.lower("p99 ms", "p99", INT),
                Column.lower("p99.9 ms", "p999", INT), Column.lower("max ms", "max", INT));
        List<Column> w2 = new ArrayList<>(lateness);
        w2.addAll(List.of(Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT),
                Column.plain("due/s", "due_per_s", INT)));
        w2.addAll(cost);
        List<Column> w3 = new ArrayList<>(List.of(
                Column.higher("drain jobs/s (enqueue done → last received)", "drain_jobs_per_s"),
                Column.higher("end-to-end jobs/s (enqueue start → last received)", "e2e_jobs_per_s"),
                Column.higher("enqueue jobs/s during W3", "enqueue_jobs_per_s")));
        w3.addAll(cost);
        w3.addAll(List.of(Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT)));
        List<Column> w4 = new ArrayList<>(List.of(Column.higher("enqueue req/s", "enqueue_req_per_s"),
                Column.higher("delivered jobs/s", "delivered_jobs_per_s")));
        w4.addAll(lateness);
        w4.addAll(List.of(Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT)));
        w4.addAll(cost);
        List<Column> churn = new ArrayList<>(List.of(Column.plain("jobs/s enqueued", "rate_jobs_per_s", INT),
                Column.lower("p50 ms", "p50", INT), Column.lower("p99 ms", "p99", INT), Column.lower("max ms", "max", INT),
                Column.lower("lost", "lost", INT), Column.lower("dup", "duplicated", INT),
                Column.plain("n_live_tup start", "live_start", INT), Column.plain("n_live_tup ¼", "live_quarter", INT),
                Column.lower("n_live_tup end", "live_end", INT),
                Column.plain("n_dead_tup start", "dead_start", INT), Column.plain("n_dead_tup ¼", "dead_quarter", INT),
                Column.lower("n_dead_tup end", "dead_end", INT),
                Column.plain("jobs table kB start", "table_kb_start", INT), Column.plain("jobs table kB ¼", "table_kb_quarter", INT),
                Column.lower("jobs table kB end", "table_kb_end", INT), Column.lower("jobs table kB max", "table_kb_max", INT),
                Column.lower("all tables kB end", "all_tables_kb_end", INT),
                Column.plain("autovacuums of the jobs table", "autovacuums", INT)));
        churn.addAll(cost);
        return List.of(
                new TableSpec("PG-W1", String.format("PostgreSQL W1 enqueue (%,d jobs, delay 10–60 s, 8 producers)", s.w1Jobs()),
                        "The same workload on the bench PostgreSQL, a new database per run. Single add: every add "
                                + "acknowledged before the producer's next. Bulk: the implementation's batch path, 1,000 jobs "
                                + "per call. PostgreSQL CPU is the CPU time of all its processes over the run (/proc); WAL "
                                + "bytes are the WAL insert position's advance.",
                        List.of(Column.higher("single add, jobs/s", "jobs_per_s"), Column.label("bulk path", "bulk_path"),
                                Column.higher("bulk, jobs/s", "bulk_jobs_per_s"),
                                Column.lower("PostgreSQL CPU ms / 1k jobs (single)", "pg_cpu_ms_per_1k", INT),
                                Column.lower("WAL bytes / job (single)", "pg_wal_bytes_per_job", INT),
                                Column.lower("PostgreSQL CPU ms / 1k jobs (bulk)", "bulk_pg_cpu_ms_per_1k", INT),
                                Column.lower("WAL bytes / job (bulk)", "bulk_pg_wal_bytes_per_job", INT)), true),
                new TableSpec("PG-SIZE", "PostgreSQL table and index bytes per pending job (after W1)",
                        "Growth of pg_total_relation_size (heap, indexes, TOAST) summed over every table of the run's "
                                + "database during W1, divided by the jobs: delayq's delayq_jobs (and its counters), "
                                + "graphile-worker's _private_jobs, pg-boss's partition of pgboss.job for the queue.",
                        List.of(Column.lower("bytes / pending job, single add", "bytes_per_job", INT),
                                Column.lower("bytes / pending job, bulk path", "bulk_bytes_per_job", INT)), true),
                new TableSpec("PG-W2", String.format("PostgreSQL W2 timing precision (%,d jobs due over ~%.1f s, consumers "
                        + "running, concurrency 8) — lateness", s.w2Jobs(), s.w2SpanMs() / 1000.0),
                        "Lateness = consumer's clock on receipt − intended due time (producer's clock before the add + delay), "
                                + "ms resolution. How each implementation wakes up for a job due later is in bench/README.md: "
                                + "delayq arms a timer at the next due time (LISTEN/NOTIFY tells it of earlier ones); "
                                + "graphile-worker polls every pollInterval; pg-boss polls every pollingIntervalSeconds.",
                        w2, true),
                new TableSpec("PG-W3", String.format("PostgreSQL W3 drain (%,d already-due jobs, consumer concurrency 8)", s.w3Jobs()),
                        "Consumers connected but gated until the last add returned. Every implementation here holds a job "
                                + "until it is acknowledged (at-least-once).", w3, true),
                new TableSpec("PG-W4", String.format("PostgreSQL W4 end to end over HTTP (%,d jobs through the service, due "
                        + "over ~%.1f s, HTTP callback receiver)", s.w4Jobs(), s.w4SpanMs() / 1000.0),
                        "The service jar as a child process with store: {type: postgres} on the bench PostgreSQL (a new "
                                + "database per repetition); producers POST single jobs; a local HTTP server answers every "
                                + "callback 200.", w4, false),
                new TableSpec("PG-CHURN", String.format("PostgreSQL steady churn (%,d jobs/s for %,d s, delays 0–%.0f s, "
                                + "consumers running) — bloat", s.churnRate(), s.churnSeconds(), s.churnMaxDelayMs() / 1000.0),
                        "Jobs enqueued at a fixed rate while consumers take and acknowledge them, once per implementation. "
                                + "The jobs table's n_live_tup / n_dead_tup (pg_stat_user_tables) and pg_total_relation_size "
                                + "are sampled from the start of the steady phase (empty table) to its end; ¼ is the sample "
                                + "nearest a quarter of it. delayq runs with finishedRetention 10 s (its reaper deletes "
                                + "finished rows every second); graphile-worker deletes a job when it succeeds; pg-boss runs "
                                + "with archiveCompletedAfterSeconds 10 and maintenanceIntervalSeconds 10 (it moves completed "
                                + "jobs to pgboss.archive, counted in \"all tables\"). Autovacuum is PostgreSQL's default "
                                + "(naptime 1 min); delayq's table sets vacuum and analyze scale factors of 1–2 %.",
                        churn, true));
    }

    /** Renders one table; {@code null} when it has no rows and no notes. */
    public static String render(TableSpec spec, Results results) {
        List<String> impls = results.impls(spec.table());
        List<String> notes = results.notes(spec.table());
        if (impls.isEmpty() && notes.isEmpty()) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        sb.append("### ").append(spec.title()).append("\n\n").append(spec.intro()).append("\n\n");
        if (!impls.isEmpty()) {
            sb.append("| implementation |");
            spec.columns().forEach(c -> sb.append(' ').append(c.header()).append(" |"));
            sb.append("\n|---|");
            spec.columns().forEach(c -> sb.append("---|"));
            sb.append('\n');
            for (String impl : impls) {
                sb.append("| ").append(impl).append(" |");
                for (Column c : spec.columns()) {
                    sb.append(' ').append(cell(spec, results, impl, c)).append(" |");
                }
                sb.append('\n');
            }
            if (spec.ratio()) {
                String ratioRow = ratioRow(spec, results, impls);
                if (ratioRow != null) {
                    sb.append(ratioRow);
                }
            }
            sb.append('\n');
        }
        for (String n : notes) {
            sb.append("- ").append(n).append('\n');
        }
        if (!notes.isEmpty()) {
            sb.append('\n');
        }
        return sb.toString();
    }

    static String cell(TableSpec spec, Results results, String impl, Column c) {
        if (c.text()) {
            String v = results.label(spec.table(), impl, c.metric());
            return v == null ? "–" : v;
        }
        Stats.Summary s = Stats.Summary.of(results.values(spec.table(), impl, c.metric()));
        if (s.n() == 0) {
            return "–";
        }
        if (s.n() == 1 || s.min() == s.max()) {
            return c.format(s.median()) + (s.n() > 1 ? " (" + c.format(s.min()) + "–" + c.format(s.max()) + ")" : "");
        }
        return c.format(s.median()) + " (" + c.format(s.min()) + "–" + c.format(s.max()) + ")";
    }

    /** Peers are every row but delayq's own and reference rows (floors). */
    static boolean isPeer(String impl) {
        return !impl.startsWith("delayq") && !impl.startsWith("floor");
    }

    static String ratioRow(TableSpec spec, Results results, List<String> impls) {
        if (!impls.contains("delayq")) {
            return null;
        }
        StringBuilder sb = new StringBuilder("| **delayq ÷ best peer** |");
        boolean any = false;
        for (Column c : spec.columns()) {
            String cellText = "";
            if (!c.text() && c.better() != Column.Better.NONE) {
                double d = Stats.Summary.of(results.values(spec.table(), "delayq", c.metric())).median();
                String bestPeer = null;
                double best = Double.NaN;
                for (String impl : impls) {
                    if (!isPeer(impl)) {
                        continue;
                    }
                    double v = Stats.Summary.of(results.values(spec.table(), impl, c.metric())).median();
                    if (Double.isNaN(v)) {
                        continue;
                    }
                    if (bestPeer == null || (c.better() == Column.Better.HIGHER ? v > best : v < best)) {
                        best = v;
                        bestPeer = impl;
                    }
                }
                if (bestPeer != null && !Double.isNaN(d)) {
                    any = true;
                    if (best == 0 && d == 0) {
                        cellText = "= " + shortName(bestPeer) + " (both 0)";
                    } else if (best == 0) {
                        cellText = "∞ vs " + shortName(bestPeer) + " (0)";
                    } else {
                        cellText = String.format("**%.2f×** %s", d / best, shortName(bestPeer));
                    }
                }
            }
            sb.append(' ').append(cellText).append(" |");
        }
        return any ? sb.append('\n').toString() : null;
    }

    static String shortName(String impl) {
        for (String multiWord : List.of("graphile-worker", "pg-boss")) {
            if (impl.startsWith(multiWord)) {
                int variant = impl.indexOf(" (");
                return multiWord + (variant > 0 ? impl.substring(variant) : "");
            }
        }
        int dash = impl.indexOf('-');
        return dash > 0 ? impl.substring(0, dash) : impl;
    }

    /**
     * The PostgreSQL part's targets, from delayq's medians and the best PostgreSQL peer's medians of this run:
     * W2 p99 ≤ 10 ms, W3 drain ≥ 2× and W1 bulk ≥ 2× the best peer. {@code null} when delayq did not run there.
     */
    public static String pgTargets(Results results) {
        StringBuilder sb = new StringBuilder();
        double p99 = median(results, "PG-W2", "delayq", "p99");
        if (!Double.isNaN(p99)) {
            sb.append(String.format("| W2 lateness p99 ≤ 10 ms | delayq p99 %,.0f ms | %s |%n", p99,
                    p99 <= 10 ? "met" : "missed"));
        }
        sb.append(twice(results, "PG-W3", "drain_jobs_per_s", "W3 drain (lease + ack) ≥ 2× the best PostgreSQL peer"));
        sb.append(twice(results, "PG-W1", "bulk_jobs_per_s", "W1 bulk ≥ 2× the best PostgreSQL peer"));
        if (sb.isEmpty()) {
            return null;
        }
        return "### PostgreSQL targets (medians of this run)\n\n| target | this run | |\n|---|---|---|\n" + sb + "\n";
    }

    private static String twice(Results results, String table, String metric, String target) {
        double d = median(results, table, "delayq", metric);
        if (Double.isNaN(d)) {
            return "";
        }
        String best = null;
        double bestValue = Double.NaN;
        for (String impl : results.impls(table)) {
            double v = median(results, table, impl, metric);
            if (isPeer(impl) && !Double.isNaN(v) && (best == null || v > bestValue)) {
                best = impl;
                bestValue = v;
            }
        }
        if (best == null) {
            return String.format("| %s | delayq %,.0f jobs/s, no peer measured | – |%n", target, d);
        }
        double ratio = d / bestValue;
        return String.format("| %s | delayq %,.0f jobs/s = **%.2f×** %s (%,.0f) | %s |%n", target, d, ratio, best, bestValue,
                ratio >= 2 ? "met" : "missed");
    }

    private static double median(Results results, String table, String impl, String metric) {
        return Stats.Summary.of(results.values(table, impl, metric)).median();
    }

    /**
     * Where Redis time goes for delayq: per workload, the commands it caused (scripts' inner calls included), per job.
     */
    public static String redisSplit(Results results, String impl) {
        StringBuilder sb = new StringBuilder();
        for (String table : List.of("W1", "W2", "W3", "W4")) {
            List<Results.Run> runs = results.runs(table).stream().filter(r -> r.impl().equals(impl)).toList();
            if (runs.isEmpty()) {
                continue;
            }
            double jobs = 0;
            Map<String, long[]> sum = new TreeMap<>();
            for (Results.Run r : runs) {
                Double j = r.metrics().get("jobs");
                if (j == null) {
                    continue;
                }
                jobs += j;
                r.commands().forEach((k, v) -> {
                    long[] acc = sum.computeIfAbsent(k, x -> new long[2]);
                    acc[0] += v[0];
                    acc[1] += v[1];
                });
            }
            if (jobs == 0 || sum.isEmpty()) {
                continue;
            }
            long totalUsec = sum.values().stream().mapToLong(v -> v[1]).sum();
            if (sb.isEmpty()) {
                sb.append("### Where Redis time goes (").append(impl).append(", commandstats per job, all repetitions)\n\n")
                        .append("`usec` counts time inside each command; a script's inner calls are listed under their own "
                                + "names and also inside the script's own time.\n\n")
                        .append("| workload | command | calls / job | Redis µs / job | share of usec |\n|---|---|---|---|---|\n");
            }
            final double j = jobs;
            sum.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1])).limit(8)
                    .forEach(e -> sb.append(String.format("| %s | %s | %.2f | %.1f | %.0f %% |%n", table, e.getKey(),
                            e.getValue()[0] / j, e.getValue()[1] / j, 100.0 * e.getValue()[1] / Math.max(1, totalUsec))));
        }
        return sb.isEmpty() ? null : sb.append('\n').toString();
    }
}
