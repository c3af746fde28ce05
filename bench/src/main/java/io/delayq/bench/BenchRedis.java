package io.delayq.bench;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark's private Redis: a fresh {@code redis-server} on a free loopback port without persistence, like the
 * peers were measured on. Prefers the {@code redis-server} on the PATH (PEERS.md used 7.0.15 from the PATH, so the
 * numbers compare), else the binary bundled in the embedded-redis Maven dependency through
 * {@code io.delayq.redis.EmbeddedRedis}. Never uses {@code REDIS_URL} or 6379: the harness runs FLUSHALL.
 */
public final class BenchRedis implements AutoCloseable {
    private final Process process;
    private final AutoCloseable embedded;
    private final int port;
    private final String description;
    private final Jedis admin;
    private Path dir;

    private BenchRedis(Process process, AutoCloseable embedded, int port, String description) {
        this.process = process;
        this.embedded = embedded;
        this.port = port;
        this.description = description;
        this.admin = new Jedis("127.0.0.1", port, 60_000);
    }

    /** Starts a server; {@code preferPath} false forces the bundled binary. */
    public static BenchRedis start(boolean preferPath) throws Exception {
        return start(preferPath, 0, List.of());
    }

    /**
     * Starts a server on {@code port} (0: a free one) with more {@code redis-server} arguments (e.g. the cluster mode
     * of a {@link BenchCluster} node), from the same binary as {@link #start(boolean)}.
     */
    static BenchRedis start(boolean preferPath, int port, List<String> extraArgs) throws Exception {
        String onPath = preferPath ? findOnPath("redis-server") : null;
        if (onPath != null) {
            if (port == 0) {
                port = freePort();
            }
            Path dir = Files.createTempDirectory("delayq-bench-redis");
            List<String> cmd = new ArrayList<>(List.of(onPath, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString()));
            cmd.addAll(extraArgs);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile()).start();
            waitForPing(port, p);
            BenchRedis r = new BenchRedis(p, null, port, "redis-server " + versionAt(port) + " from the PATH (" + onPath + ")");
            r.dir = dir;
            return r;
        }
        if (!extraArgs.isEmpty()) {
            // a cluster node keeps its nodes.conf in its data directory: one of its own
            Path dir = Files.createTempDirectory("delayq-bench-redis");
            io.delayq.redis.EmbeddedRedis server = io.delayq.redis.EmbeddedRedis.start(port, dir, false, "no", extraArgs);
            BenchRedis r = new BenchRedis(null, server, server.port(), "redis-server " + versionAt(server.port())
                    + " bundled in the embedded-redis dependency" + (preferPath ? " (none on the PATH)" : ""));
            r.dir = dir;
            return r;
        }
        // The engine's helper, looked up reflectively so that the harness compiles whatever state storage-redis is in.
        Class<?> c = Class.forName("io.delayq.redis.EmbeddedRedis");
        Method start = c.getMethod("start", int.class, Path.class, boolean.class);
        Object server = start.invoke(null, port, null, false);
        int actual = (Integer) c.getMethod("port").invoke(server);
        return new BenchRedis(null, (AutoCloseable) server, actual,
                "redis-server " + versionAt(actual) + " bundled in the embedded-redis dependency (none on the PATH)");
    }

    private static String versionAt(int port) {
        try (Jedis j = new Jedis("127.0.0.1", port, 5_000)) {
            return RedisInfo.parse(j.info("server")).getOrDefault("redis_version", "?");
        }
    }

    static String findOnPath(String exe) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            File f = new File(dir, exe);
            if (f.isFile() && f.canExecute()) {
                return f.getAbsolutePath();
            }
        }
        return null;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void waitForPing(int port, Process p) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("redis-server exited at start with code " + p.exitValue());
            }
            try (Jedis j = new Jedis("127.0.0.1", port, 500)) {
                if ("PONG".equals(j.ping())) {
                    return;
                }
            } catch (Exception e) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("redis-server did not answer PING on port " + port + " within 10 s");
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public String description() {
        return description;
    }

    public synchronized String serverVersion() {
        return RedisInfo.parse(admin.info("server")).getOrDefault("redis_version", "?");
    }

    /** FLUSHALL, then zeroes the command statistics so the next run's INFO deltas are its own. */
    public synchronized void reset() {
        admin.flushAll();
        resetStats();
    }

    public synchronized void resetStats() {
        admin.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
    }

    public synchronized void flushAll() {
        admin.flushAll();
    }

    /** One INFO snapshot: CPU, memory and per-command statistics. */
    public synchronized RedisInfo info() {
        return RedisInfo.of(admin.info("everything"));
    }

    public synchronized long usedMemory() {
        return Long.parseLong(RedisInfo.parse(admin.info("memory")).get("used_memory"));
    }

    /** The slowest recent commands, for diagnosing a timeout. */
    public synchronized String slowlog(int n) {
        StringBuilder sb = new StringBuilder();
        for (var e : admin.slowlogGet(n)) {
            sb.append("\n    ").append(e.getExecutionTime()).append(" µs: ")
                    .append(String.join(" ", e.getArgs().stream().limit(4).map(a -> a.length() > 60 ? a.substring(0, 60) + "…" : a).toList()));
        }
        return sb.toString();
    }

    public synchronized Jedis admin() {
        return admin;
    }

    @Override
    public void close() {
        try {
            admin.close();
        } catch (Exception ignored) {
            // closing anyway
        }
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (embedded != null) {
            try {
                embedded.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
        if (dir != null) {
            try (var files = Files.list(dir)) {
                files.forEach(f -> f.toFile().delete());
                Files.deleteIfExists(dir);
            } catch (IOException ignored) {
                // only logs of a server that is gone
            }
        }
    }
}
