package io.delayq.bench.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.bench.BenchOptions;
import io.delayq.bench.BenchRedis;
import io.delayq.bench.Payloads;
import io.delayq.bench.Results;
import io.delayq.bench.Sizes;
import io.delayq.bench.Stats;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * BullMQ 6.7.0 delayed jobs, measured by {@code bench/peers/bullmq/bench.js} (the same workloads as the Java driver,
 * written in Node; its Worker runs in a child process). Installs the pinned packages with {@code npm install} into
 * that folder on first use; skipped with a clear line when node/npm are missing or the install fails.
 */
public final class BullmqPeer {
    public static final String LABEL = "bullmq-6.7.0";
    private final BenchRedis redis;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;

    public BullmqPeer(BenchRedis redis, Sizes sizes, Results results, PrintStream log) {
        this.redis = redis;
        this.sizes = sizes;
        this.results = results;
        this.log = log;
    }

    public void run(BenchOptions opts) {
        List<String> workloads = new ArrayList<>();
        for (String w : List.of("W1", "W2", "W3")) {
            if (opts.runs(w)) {
                workloads.add(w);
            }
        }
        log.println("== " + LABEL + " (at-least-once (lock + moveToFinished))");
        String why = prepare();
        if (why != null) {
            log.println("  " + LABEL + ": skipped: " + why);
            workloads.forEach(w -> results.note(w, LABEL + ": skipped: " + why));
            return;
        }
        try {
            runNode(String.join(",", workloads));
        } catch (Exception e) {
            log.println("  " + LABEL + ": failed: " + e.getMessage());
            workloads.forEach(w -> results.note(w, LABEL + ": failed: " + e.getMessage()));
        } finally {
            redis.flushAll();
        }
    }

    /** @return why BullMQ cannot run, or {@code null} when it can */
    private String prepare() {
        if (CeilingPeer.findOnPath("node") == null || CeilingPeer.findOnPath("npm") == null) {
            return "node and npm are not both on the PATH";
        }
        Path dir = folder();
        if (dir == null) {
            return "bench/peers/bullmq not found (run from the repository root or the bench folder)";
        }
        if (Files.isDirectory(dir.resolve("node_modules/bullmq")) && Files.isDirectory(dir.resolve("node_modules/ioredis"))) {
            return null;
        }
        log.println("  npm install in " + dir + " (first use)");
        try {
            Process p = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
                    .directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                p.destroyForcibly();
                return "npm install failed: " + out.lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("");
            }
            return null;
        } catch (Exception e) {
            return "npm install failed: " + e.getMessage();
        }
    }

    static Path folder() {
        for (String candidate : List.of("bench/peers/bullmq", "peers/bullmq", "../bench/peers/bullmq")) {
            Path p = Path.of(candidate);
            if (Files.isRegularFile(p.resolve("bench.js"))) {
                return p.toAbsolutePath().normalize();
            }
        }
        return null;
    }

    private void runNode(String workloads) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("node", "bench.js", workloads, Integer.toString(sizes.reps()))
                .directory(folder().toFile()).redirectError(ProcessBuilder.Redirect.INHERIT);
        Map<String, String> env = pb.environment();
        env.put("BENCH_REDIS_PORT", Integer.toString(redis.port()));
        env.put("BENCH_BODY", Payloads.body200());
        env.put("BENCH_W1", Integer.toString(sizes.w1Jobs()));
        env.put("BENCH_W2", Integer.toString(sizes.w2Jobs()));
        env.put("BENCH_W2_SPAN", Long.toString(sizes.w2SpanMs()));
        env.put("BENCH_W2_IDLE", Long.toString(sizes.w2IdleMs()));
        env.put("BENCH_W3", Integer.toString(sizes.w3Jobs()));
        env.put("BENCH_LOST", Long.toString(sizes.lostAfterMs()));
        env.put("BENCH_GRACE", Long.toString(sizes.dupGraceMs()));
        env.put("BENCH_WARM_SINGLE", Integer.toString(sizes.warmupSingle()));
        env.put("BENCH_WARM_BULK", Integer.toString(sizes.warmupBulk()));
        env.put("BENCH_WARM_DRAIN", Integer.toString(sizes.warmupDrain()));
        Process p = pb.start();
        ObjectMapper om = new ObjectMapper();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("RESULT ")) {
                    log.println(line);
                    continue;
                }
                record(om.readTree(line.substring(7)));
            }
        }
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("node bench.js exited with " + (p.isAlive() ? "a timeout" : p.exitValue()));
        }
    }

    private void record(JsonNode r) {
        String table = r.get("table").asText();
        int rep = r.get("rep").asInt();
        Map<String, Double> m = new LinkedHashMap<>();
        r.get("metrics").fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asDouble()));
        Map<String, long[]> cmds = new LinkedHashMap<>();
        if (r.has("commands")) {
            r.get("commands").fields().forEachRemaining(e -> cmds.put(e.getKey(),
                    new long[]{e.getValue().get(0).asLong(), e.getValue().get(1).asLong()}));
        }
        if (r.has("lateness")) {
            long[] late = new long[r.get("lateness").size()];
            for (int i = 0; i < late.length; i++) {
                late[i] = r.get("lateness").get(i).asLong();
            }
            late = Stats.sorted(late);
            putLateness(m, late);
            results.addLateness(table, LABEL, late);
        }
        results.add(new Results.Run(table, LABEL, rep, m, cmds));
        if (table.equals("W1")) {
            results.label("W1", LABEL, "bulk_path", "addBulk 1000 per call");
            results.add(new Results.Run("MEMORY", LABEL, rep, m, Map.of()));
        }
        log.printf("  %s %s rep %d: %s%n", table, LABEL, rep, brief(table, m));
    }

    private static void putLateness(Map<String, Double> m, long[] sorted) {
        m.put("p50", Stats.percentile(sorted, 0.50));
        m.put("p90", Stats.percentile(sorted, 0.90));
        m.put("p99", Stats.percentile(sorted, 0.99));
        m.put("p999", Stats.percentile(sorted, 0.999));
        m.put("max", sorted.length == 0 ? Double.NaN : (double) sorted[sorted.length - 1]);
    }

    private static String brief(String table, Map<String, Double> m) {
        return switch (table) {
            case "W1" -> String.format("single %,.0f jobs/s, bulk %,.0f jobs/s, %.0f B/job, %.1f calls/job",
                    m.get("jobs_per_s"), m.get("bulk_jobs_per_s"), m.get("bytes_per_job"), m.get("redis_calls_per_job"));
            case "W2" -> String.format("p50 %.0f p99 %.0f max %.0f ms, lost %.0f dup %.0f, %.0f Redis CPU ms/1k",
                    m.get("p50"), m.get("p99"), m.get("max"), m.get("lost"), m.get("duplicated"), m.get("redis_cpu_ms_per_1k"));
            default -> String.format("drain %,.0f jobs/s, end-to-end %,.0f jobs/s, lost %.0f dup %.0f",
                    m.get("drain_jobs_per_s"), m.get("e2e_jobs_per_s"), m.get("lost"), m.get("duplicated"));
        };
    }

}
