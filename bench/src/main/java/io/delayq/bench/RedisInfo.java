package io.delayq.bench;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A parsed {@code INFO} snapshot. {@link #costSince} gives what one run cost Redis: CPU seconds and command calls
 * (commands inside Lua scripts included, as {@code INFO commandstats} counts them), without the harness's own
 * INFO / CONFIG / FLUSHALL calls.
 */
public record RedisInfo(double cpuUser, double cpuSys, long usedMemory, Map<String, long[]> commands) {

    static Map<String, String> parse(String info) {
        Map<String, String> m = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int i = line.indexOf(':');
            if (i > 0 && !line.startsWith("#")) {
                m.put(line.substring(0, i), line.substring(i + 1).trim());
            }
        }
        return m;
    }

    static RedisInfo of(String info) {
        Map<String, String> m = parse(info);
        Map<String, long[]> cmds = new LinkedHashMap<>();
        for (var e : m.entrySet()) {
            if (e.getKey().startsWith("cmdstat_")) {
                String name = e.getKey().substring("cmdstat_".length());
                long calls = 0;
                long usec = 0;
                for (String kv : e.getValue().split(",")) {
                    String[] p = kv.split("=");
                    if (p[0].equals("calls")) {
                        calls = Long.parseLong(p[1]);
                    } else if (p[0].equals("usec")) {
                        usec = Long.parseLong(p[1]);
                    }
                }
                cmds.put(name, new long[]{calls, usec});
            }
        }
        return new RedisInfo(Double.parseDouble(m.getOrDefault("used_cpu_user", "0")),
                Double.parseDouble(m.getOrDefault("used_cpu_sys", "0")),
                Long.parseLong(m.getOrDefault("used_memory", "0")), cmds);
    }

    static boolean isHarnessCommand(String name) {
        String n = name.toLowerCase();
        return n.startsWith("info") || n.startsWith("config") || n.startsWith("flushall");
    }

    /** The cost of everything between {@code before} and this snapshot. */
    public Cost costSince(RedisInfo before) {
        long calls = 0;
        Map<String, long[]> per = new LinkedHashMap<>();
        for (var e : commands.entrySet()) {
            if (isHarnessCommand(e.getKey())) {
                continue;
            }
            long[] b = before.commands.getOrDefault(e.getKey(), new long[2]);
            long c = e.getValue()[0] - b[0];
            long u = e.getValue()[1] - b[1];
            if (c > 0) {
                per.put(e.getKey(), new long[]{c, u});
                calls += c;
            }
        }
        return new Cost((cpuUser - before.cpuUser) * 1000.0, (cpuSys - before.cpuSys) * 1000.0, calls, per);
    }

    /**
     * What a run cost Redis.
     *
     * @param userMs   Redis user CPU, ms
     * @param sysMs    Redis system CPU, ms
     * @param calls    command calls (scripts' inner calls included), harness calls excluded
     * @param commands per command: {calls, usec}
     */
    public record Cost(double userMs, double sysMs, long calls, Map<String, long[]> commands) implements Backend.Cost {
        public double cpuMs() {
            return userMs + sysMs;
        }

        /** Puts the usual per-job figures into a run's metrics. */
        @Override
        public void into(Map<String, Double> metrics, long jobs) {
            metrics.put("redis_cpu_ms_per_1k", cpuMs() / (jobs / 1000.0));
            metrics.put("redis_user_ms_per_1k", userMs / (jobs / 1000.0));
            metrics.put("redis_sys_ms_per_1k", sysMs / (jobs / 1000.0));
            metrics.put("redis_calls_per_job", calls / (double) jobs);
        }

        @Override
        public void intoBulk(Map<String, Double> metrics, long jobs) {
            metrics.put("bulk_redis_cpu_ms_per_1k", cpuMs() / (jobs / 1000.0));
            metrics.put("bulk_redis_calls_per_job", calls / (double) jobs);
        }

        @Override
        public String brief(Map<String, Double> metrics) {
            return String.format("%.0f Redis CPU ms/1k, %.1f calls/job", metrics.get("redis_cpu_ms_per_1k"),
                    metrics.get("redis_calls_per_job"));
        }
    }
}
