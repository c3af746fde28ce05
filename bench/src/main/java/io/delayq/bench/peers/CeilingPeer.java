package io.delayq.bench.peers;

import io.delayq.bench.BenchRedis;
import io.delayq.bench.Payloads;
import io.delayq.bench.Results;
import io.delayq.bench.Sizes;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The physical limit on the same Redis: {@code redis-benchmark} for one EVAL / EVALSHA doing HSET+ZADD (delayq's
 * minimal enqueue: one HASH entry and one ZSET entry) and for ZADD alone, at 50 and 8 clients and 50 clients with
 * {@code -P 16}. Also the memory floor: 100k EVALSHA HSET+ZADD, used_memory delta per job. Skipped when
 * {@code redis-benchmark} is not on the PATH.
 */
public final class CeilingPeer {
    static final String SCRIPT = "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])";
    private final BenchRedis redis;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;

    public CeilingPeer(BenchRedis redis, Sizes sizes, Results results, PrintStream log) {
        this.redis = redis;
        this.sizes = sizes;
        this.results = results;
        this.log = log;
    }

    public void run(boolean throughput, boolean memoryFloor) throws Exception {
        String exe = findOnPath("redis-benchmark");
        if (exe == null) {
            String why = "ceiling: skipped: redis-benchmark is not on the PATH";
            log.println(why);
            results.note("CEILING", why);
            return;
        }
        log.println("== ceiling (" + exe + ")");
        String version = Machine(exe);
        if (throughput) {
            results.note("CEILING", "redis-benchmark " + version + ", " + sizes.ceilingRequests()
                    + " requests per case; it runs on the same cores as redis-server, so each row is Redis plus one client.");
            for (int rep = 1; rep <= sizes.reps(); rep++) {
                for (String c : List.of("EVAL HSET+ZADD", "EVALSHA HSET+ZADD", "ZADD")) {
                    Map<String, Double> m = new LinkedHashMap<>();
                    double[] r50 = bench(exe, c, 50, 1, sizes.ceilingRequests());
                    m.put("c50", r50[0]);
                    m.put("p50_ms", r50[1]);
                    m.put("c8", bench(exe, c, 8, 1, sizes.ceilingRequests())[0]);
                    m.put("c50p16", bench(exe, c, 50, 16, sizes.ceilingRequests())[0]);
                    results.add(new Results.Run("CEILING", c, rep, m, Map.of()));
                    log.printf("  %s rep %d: %,.0f/s (50 clients), %,.0f/s (8), %,.0f/s (-P 16)%n", c, rep, m.get("c50"),
                            m.get("c8"), m.get("c50p16"));
                }
            }
        }
        if (memoryFloor) {
            for (int rep = 1; rep <= sizes.reps(); rep++) {
                redis.reset();
                long mem0 = redis.usedMemory();
                bench(exe, "EVALSHA HSET+ZADD", 8, 1, sizes.w1Jobs());
                long mem1 = redis.usedMemory();
                long members = redis.admin().zcard("bench:{c}:scheduled");
                Map<String, Double> m = new LinkedHashMap<>();
                m.put("bytes_per_job", (mem1 - mem0) / (double) members);
                results.add(new Results.Run("MEMORY", "floor: HASH+ZSET (redis-benchmark EVALSHA)", rep, m, Map.of()));
            }
        }
        redis.reset();
    }

    private static String Machine(String exe) {
        String v = io.delayq.bench.Machine.run(exe, "--version").trim();
        int i = v.indexOf("redis-benchmark ");
        return i >= 0 ? v.substring(i + 16).split(" ")[0] : v;
    }

    /** Runs one case; returns {requests/s, p50 ms}. */
    private double[] bench(String exe, String kind, int clients, int pipeline, int requests) throws Exception {
        redis.flushAll();
        List<String> cmd = new ArrayList<>(List.of(exe, "-h", "127.0.0.1", "-p", Integer.toString(redis.port()),
                "-n", Integer.toString(requests), "-r", "100000000", "-c", Integer.toString(clients),
                "-P", Integer.toString(pipeline), "--csv"));
        String keys1 = "bench:{c}:jobs";
        String keys2 = "bench:{c}:scheduled";
        switch (kind) {
            case "EVAL HSET+ZADD" -> cmd.addAll(List.of("EVAL", SCRIPT, "2", keys1, keys2, "__rand_int__",
                    Payloads.body200(), "__rand_int__"));
            case "EVALSHA HSET+ZADD" -> {
                String sha = redis.admin().scriptLoad(SCRIPT);
                cmd.addAll(List.of("EVALSHA", sha, "2", keys1, keys2, "__rand_int__", Payloads.body200(), "__rand_int__"));
            }
            default -> cmd.addAll(List.of("ZADD", keys2, "__rand_int__", "member:__rand_int__"));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("redis-benchmark failed: " + out);
        }
        for (String line : out.split("\r?\n")) {
            if (line.startsWith("\"") && !line.startsWith("\"test\"")) {
                // the test name (first field) contains the body's own quotes and commas: count fields from the end
                String[] f = line.split("\",\"");
                double rps = Double.parseDouble(f[f.length - 7].replace("\"", ""));
                double p50 = Double.parseDouble(f[f.length - 4].replace("\"", ""));
                return new double[]{rps, p50};
            }
        }
        throw new IllegalStateException("no CSV row in redis-benchmark output: " + out);
    }

    static String findOnPath(String exe) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            java.io.File f = new java.io.File(dir, exe);
            if (f.isFile() && f.canExecute()) {
                return f.getAbsolutePath();
            }
        }
        return null;
    }
}
