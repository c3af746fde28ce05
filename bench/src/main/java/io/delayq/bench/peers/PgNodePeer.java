package io.delayq.bench.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.bench.BenchPostgres;
import io.delayq.bench.ChurnSampler;
import io.delayq.bench.Payloads;
import io.delayq.bench.Results;
import io.delayq.bench.Sizes;
import io.delayq.bench.Stats;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL job queue from npm, measured by its script under {@code bench/peers/<name>/} (bench.js on the shared
 * driver {@code bench/peers/pg-common/driver.js}; its consumer runs in a child process), on the bench PostgreSQL.
 *
 * <p>The script asks the harness, over its stdout and stdin, for a fresh database per run and for the server-side
 * figures (PostgreSQL CPU, WAL, table sizes, and during the churn the jobs table's statistics), so those are measured
 * by the same code as delayq's. The pinned packages are installed with {@code npm ci} on first use; a peer is skipped
 * with a line in its tables when node/npm are missing or the install fails.
 */
public final class PgNodePeer {
    /** One configuration of a peer, with its own row in the tables. */
    public record Variant(String label, String settingsJson, List<String> workloads, boolean fullWarmUp, String what) {
    }

    public static final String GRAPHILE = "graphile-worker";
    public static final String PGBOSS = "pg-boss";

    private final String name;
    private final String bulkPath;
    private final String semantics;
    private final List<String> modules;
    private final List<Variant> variants;

    private PgNodePeer(String name, String bulkPath, String semantics, List<String> modules, List<Variant> variants) {
        this.name = name;
        this.bulkPath = bulkPath;
        this.semantics = semantics;
        this.modules = modules;
        this.variants = variants;
    }

    /** The PostgreSQL peers, in the order they run. */
    public static List<PgNodePeer> all() {
        return List.of(
                new PgNodePeer(GRAPHILE, "addJobs 1000 per call", "at-least-once (locked_at + complete_job)",
                        List.of("graphile-worker", "pg"), List.of(
                        new Variant("graphile-worker-0.17.3", "{}", List.of("W1", "W2", "W3", "CHURN"), true,
                                "defaults: concurrency 8, pollInterval 2,000 ms, no local queue"),
                        new Variant("graphile-worker-0.17.3 (pollInterval 100 ms)", "{\"pollInterval\":100}",
                                List.of("W2"), false, "pollInterval lowered to 100 ms"),
                        new Variant("graphile-worker-0.17.3 (localQueue 100, batched completes)",
                                "{\"localQueueSize\":100,\"completeJobBatchDelay\":0}", List.of("W3"), false,
                                "its documented batching: localQueue.size 100, completeJobBatchDelay 0"))),
                new PgNodePeer(PGBOSS, "insert 1000 per call", "at-least-once (state active + complete)",
                        List.of("pg-boss", "pg"), List.of(
                        new Variant("pg-boss-10.4.2",
                                "{\"batchSize\":1000,\"pollingIntervalSeconds\":0.5,"
                                        + "\"churn\":{\"boss\":{\"archiveCompletedAfterSeconds\":10,\"maintenanceIntervalSeconds\":10}}}",
                                List.of("W1", "W2", "W3", "CHURN"), true,
                                "8 work() loops, batchSize 1,000, pollingIntervalSeconds 0.5 (its minimum)"))));
    }

    /** The name for {@code --impl}. */
    public String name() {
        return name;
    }

    public List<Variant> variants() {
        return variants;
    }

    /** The workloads of {@code selected} that {@code v} runs. */
    public static List<String> workloads(Variant v, List<String> selected) {
        return v.workloads().stream().filter(selected::contains).toList();
    }

    /**
     * Runs one variant's workloads (those of {@code selected} it has) in one node process; failures become notes in
     * its tables.
     */
    public void run(Variant v, List<String> selected, BenchPostgres pg, Sizes sizes, Results results, PrintStream log) {
        List<String> workloads = workloads(v, selected);
        if (workloads.isEmpty()) {
            return;
        }
        log.println("== " + v.label() + " on PostgreSQL (" + semantics + "; " + v.what() + ")");
        String why = prepare(log);
        if (why != null) {
            log.println("  " + v.label() + ": skipped: " + why);
            workloads.forEach(w -> results.note("PG-" + w, v.label() + ": skipped: " + why));
            return;
        }
        String owner = name + "-" + variants.indexOf(v);
        try {
            runNode(v, workloads, owner, pg, sizes, results, log);
        } catch (Exception e) {
            log.println("  " + v.label() + ": failed: " + e.getMessage());
            workloads.forEach(w -> results.note("PG-" + w, v.label() + ": failed: " + e.getMessage()));
        } finally {
            try {
                pg.dropDatabaseOf(owner);
            } catch (Exception ignored) {
                // the server goes at the end of the part
            }
        }
    }

    /** @return why the peer cannot run, or {@code null} when it can */
    private String prepare(PrintStream log) {
        if (CeilingPeer.findOnPath("node") == null || CeilingPeer.findOnPath("npm") == null) {
            return "node and npm are not both on the PATH";
        }
        Path dir = folder(name);
        if (dir == null) {
            return "bench/peers/" + name + " not found (run from the repository root or the bench folder)";
        }
        if (modules.stream().allMatch(m -> Files.isDirectory(dir.resolve("node_modules").resolve(m)))) {
            return null;
        }
        log.println("  npm ci in " + dir + " (first use)");
        try {
            Process p = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
                    .directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                p.destroyForcibly();
                return "npm ci failed: " + out.lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("");
            }
            return null;
        } catch (Exception e) {
            return "npm ci failed: " + e.getMessage();
        }
    }

    static Path folder(String name) {
        for (String candidate : List.of("bench/peers/" + name, "peers/" + name, "../bench/peers/" + name)) {
            Path p = Path.of(candidate);
            if (Files.isRegularFile(p.resolve("bench.js")) && Files.isRegularFile(p.resolveSibling("pg-common/driver.js"))) {
                return p.toAbsolutePath().normalize();
            }
        }
        return null;
    }

    private void runNode(Variant v, List<String> workloads, String owner, BenchPostgres pg, Sizes sizes, Results results,
                         PrintStream log) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("node", "bench.js", String.join(",", workloads), Integer.toString(sizes.reps()))
                .directory(folder(name).toFile()).redirectError(ProcessBuilder.Redirect.INHERIT);
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("PG") || k.equals("DATABASE_URL")); // node-postgres reads PGHOST etc.
        env.put("BENCH_BODY", Payloads.body200());
        env.put("BENCH_VARIANT", v.settingsJson());
        env.put("BENCH_W1", Integer.toString(sizes.w1Jobs()));
        env.put("BENCH_W2", Integer.toString(sizes.w2Jobs()));
        env.put("BENCH_W2_SPAN", Long.toString(sizes.w2SpanMs()));
        env.put("BENCH_W2_IDLE", Long.toString(sizes.w2IdleMs()));
        env.put("BENCH_W3", Integer.toString(sizes.w3Jobs()));
        env.put("BENCH_LOST", Long.toString(sizes.lostAfterMs()));
        env.put("BENCH_GRACE", Long.toString(sizes.dupGraceMs()));
        env.put("BENCH_WARM_SINGLE", Integer.toString(v.fullWarmUp() ? sizes.warmupSingle() : 0));
        env.put("BENCH_WARM_BULK", Integer.toString(v.fullWarmUp() ? sizes.warmupBulk() : 0));
        env.put("BENCH_WARM_DRAIN", Integer.toString(sizes.warmupDrain()));
        env.put("BENCH_CHURN_RATE", Integer.toString(sizes.churnRate()));
        env.put("BENCH_CHURN_SECONDS", Long.toString(sizes.churnSeconds()));
        env.put("BENCH_CHURN_MAX_DELAY", Long.toString(sizes.churnMaxDelayMs()));
        Process p = pb.start();
        ObjectMapper om = new ObjectMapper();
        Harness harness = new Harness(owner, pg, sizes);
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             BufferedWriter w = new BufferedWriter(new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("REQ ")) {
                    w.write(om.writeValueAsString(harness.answer(om, om.readTree(line.substring(4)))));
                    w.newLine();
                    w.flush();
                } else if (line.startsWith("RESULT ")) {
                    record(v, om.readTree(line.substring(7)), results, log);
                } else {
                    log.println(line);
                }
            }
        } finally {
            harness.close();
        }
        if (!p.waitFor(60, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("node bench.js exited with " + (p.isAlive() ? "a timeout" : p.exitValue()));
        }
    }

    /** Answers the script's requests: fresh databases and the server-side measurements. */
    private static final class Harness {
        private final String owner;
        private final BenchPostgres pg;
        private final Sizes sizes;
        private final Map<Integer, BenchPostgres.Mark> marks = new HashMap<>();
        private String database;
        private ChurnSampler sampler;

        Harness(String owner, BenchPostgres pg, Sizes sizes) {
            this.owner = owner;
            this.pg = pg;
            this.sizes = sizes;
        }

        JsonNode answer(ObjectMapper om, JsonNode req) {
            ObjectNode out = om.createObjectNode();
            try {
                switch (req.get("op").asText()) {
                    case "fresh" -> {
                        closeSampler();
                        marks.clear();
                        database = pg.freshDatabase(owner);
                        out.put("url", pg.nodeUrl(database));
                    }
                    case "mark" -> {
                        int k = marks.size() + 1;
                        marks.put(k, pg.mark(database));
                        out.put("mark", k);
                    }
                    case "cost" -> {
                        BenchPostgres.Mark m = marks.get(req.get("mark").asInt());
                        boolean bytes = !req.has("bytes") || req.get("bytes").asBoolean();
                        out.set("metrics", om.valueToTree(pg.costSince(m, req.get("jobs").asLong(), bytes)));
                    }
                    case "churn-start" -> {
                        closeSampler();
                        sampler = new ChurnSampler(pg, database, req.get("table").asText(), sizes.churnSeconds() * 1000);
                        out.put("mark", 0);
                    }
                    case "churn-end" -> {
                        Map<String, Double> m = sampler.finish(req.get("jobs").asLong());
                        closeSampler();
                        out.set("metrics", om.valueToTree(m));
                    }
                    case "done" -> closeSampler();
                    default -> out.put("error", "unknown request " + req);
                }
            } catch (Exception e) {
                out.put("error", String.valueOf(e.getMessage()));
            }
            return out;
        }

        private void closeSampler() {
            if (sampler != null) {
                sampler.close();
                sampler = null;
            }
        }

        void close() {
            closeSampler();
        }
    }

    private void record(Variant v, JsonNode r, Results results, PrintStream log) {
        String table = "PG-" + r.get("table").asText();
        String label = v.label();
        int rep = r.get("rep").asInt();
        Map<String, Double> m = new LinkedHashMap<>();
        r.get("metrics").fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asDouble()));
        if (r.has("lateness")) {
            long[] late = new long[r.get("lateness").size()];
            for (int i = 0; i < late.length; i++) {
                late[i] = r.get("lateness").get(i).asLong();
            }
            late = Stats.sorted(late);
            m.put("p50", Stats.percentile(late, 0.50));
            m.put("p90", Stats.percentile(late, 0.90));
            m.put("p99", Stats.percentile(late, 0.99));
            m.put("p999", Stats.percentile(late, 0.999));
            m.put("max", late.length == 0 ? Double.NaN : (double) late[late.length - 1]);
            results.addLateness(table, label, late);
        }
        results.add(new Results.Run(table, label, rep, m, Map.of()));
        if (table.equals("PG-W1")) {
            results.label("PG-W1", label, "bulk_path", bulkPath);
            results.add(new Results.Run("PG-SIZE", label, rep, m, Map.of()));
        }
        log.printf("  %s %s rep %d: %s%n", table, label, rep, brief(table, label, m));
    }

    private static String brief(String table, String label, Map<String, Double> m) {
        return switch (table) {
            case "PG-W1" -> String.format("single %,.0f jobs/s, bulk %,.0f jobs/s, %.0f B/job, %.0f PostgreSQL CPU ms/1k, %.0f WAL B/job",
                    m.get("jobs_per_s"), m.get("bulk_jobs_per_s"), m.get("bytes_per_job"), m.get("pg_cpu_ms_per_1k"),
                    m.get("pg_wal_bytes_per_job"));
            case "PG-W2" -> String.format("p50 %.0f p99 %.0f max %.0f ms, lost %.0f dup %.0f, %.0f PostgreSQL CPU ms/1k",
                    m.get("p50"), m.get("p99"), m.get("max"), m.get("lost"), m.get("duplicated"), m.get("pg_cpu_ms_per_1k"));
            case "PG-W3" -> String.format("drain %,.0f jobs/s, end-to-end %,.0f jobs/s, lost %.0f dup %.0f, %.0f PostgreSQL CPU ms/1k",
                    m.get("drain_jobs_per_s"), m.get("e2e_jobs_per_s"), m.get("lost"), m.get("duplicated"),
                    m.get("pg_cpu_ms_per_1k"));
            default -> io.delayq.bench.ChurnWorkload.brief(m);
        };
    }
}
