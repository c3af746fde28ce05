package io.delayq.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} child process, for the embedded mode of the service and for tests (the tests' shared
 * server is {@code io.delayq.redis.testing.TestRedis} in this module's test-jar).
 *
 * <p>The binary is the linux-amd64 {@code redis-server} shipped inside the {@code embedded-redis} jar, extracted once
 * per machine to the temp directory; when it cannot run here, {@code redis-server} from the PATH is used. The process
 * binds 127.0.0.1 only and is destroyed when {@link #close()} is called or the JVM exits.
 *
 * <p>With a {@code dataDir} and {@code appendOnly}, every write is in the append-only file with
 * {@code appendfsync always} before Redis answers it, so a job the store accepted survives a restart of the server.
 */
public final class EmbeddedRedis implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRedis.class);
    private static final String BUNDLED = "redis-server-6.2.6-v5-linux-amd64";
    private static final long START_TIMEOUT_MS = 15_000;

    private static volatile String executable;

    private final int port;
    private final Process process;
    private final Path logFile;
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile long exitGraceMs;

    private EmbeddedRedis(int port, Process process, Path logFile) {
        this.port = port;
        this.process = process;
        this.logFile = logFile;
    }

    /**
     * Starts a server and waits until it answers PING.
     *
     * @param port       the port, or 0 for a free one
     * @param dataDir    where the append-only file lives, or {@code null} for no persistence
     * @param appendOnly whether to keep an append-only file (fsync on every write); ignored without a dataDir
     */
    public static EmbeddedRedis start(int port, Path dataDir, boolean appendOnly) {
        return start(port, dataDir, appendOnly, "always");
    }

    /**
     * As {@link #start(int, Path, boolean)}, with the AOF fsync policy ({@code always}, {@code everysec} or
     * {@code no}).
     */
    public static EmbeddedRedis start(int port, Path dataDir, boolean appendOnly, String appendFsync) {
        return start(port, dataDir, appendOnly, appendFsync, List.of());
    }

    /**
     * As {@link #start(int, Path, boolean, String)}, with more {@code redis-server} arguments (e.g.
     * {@code --cluster-enabled yes}).
     */
    public static EmbeddedRedis start(int port, Path dataDir, boolean appendOnly, String appendFsync, List<String> extraArgs) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < (port == 0 ? 3 : 1); attempt++) {
            int chosen = port == 0 ? freePort() : port;
            try {
                return launch(chosen, dataDir, appendOnly, appendFsync, extraArgs);
            } catch (IllegalStateException e) {
                last = e; // a free port can be taken between choosing and binding; try another
            }
        }
        throw last;
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public boolean isRunning() {
        return process.isAlive();
    }

    /** Kills the server at once (SIGKILL), as a crash would: nothing is flushed beyond what is already fsynced. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * When the JVM exits, lets the server's owner close it first, for up to {@code grace}: JVM shutdown hooks run
     * at the same time, and the service's own stop (the delivery engine flushing its acks, the archiver finishing a
     * batch) still needs Redis. Without an owner the server is stopped at exit at once.
     */
    public void closedByOwnerAtExit(Duration grace) {
        this.exitGraceMs = grace.toMillis();
    }

    private void closeAtExit() {
        try {
            if (exitGraceMs > 0 && !closed.await(exitGraceMs, TimeUnit.MILLISECONDS)) {
                LOG.warn("embedded Redis on port {}: its owner did not close it within {} ms of the JVM exiting;"
                        + " stopping it now", port, exitGraceMs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
    }

    /** Stops the server (SIGTERM, so an append-only file is flushed), waiting up to 10 s. */
    @Override
    public void close() {
        try {
            stop();
        } finally {
            closed.countDown();
        }
    }

    private void stop() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static EmbeddedRedis launch(int port, Path dataDir, boolean appendOnly, String appendFsync, List<String> extraArgs) {
        List<String> command = new ArrayList<>(List.of(executable(),
                "--port", Integer.toString(port),
                "--bind", "127.0.0.1",
                "--daemonize", "no",
                "--save", ""));
        if (dataDir != null) {
            try {
                Files.createDirectories(dataDir);
            } catch (IOException e) {
                throw new IllegalStateException("cannot create the Redis data directory " + dataDir.toAbsolutePath()
                        + ": " + e.getMessage(), e);
            }
            command.addAll(List.of("--dir", dataDir.toAbsolutePath().toString(),
                    "--appendonly", appendOnly ? "yes" : "no",
                    "--appendfsync", appendFsync));
        } else {
            command.addAll(List.of("--appendonly", "no"));
        }
        command.addAll(extraArgs);
        Path log;
        Process process;
        try {
            log = Files.createTempFile("delayq-redis-" + port + "-", ".log");
            log.toFile().deleteOnExit();
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + command.get(0) + ": " + e.getMessage(), e);
        }
        EmbeddedRedis server = new EmbeddedRedis(port, process, log);
        Runtime.getRuntime().addShutdownHook(new Thread(server::closeAtExit, "embedded-redis-" + port + "-stop"));
        server.awaitReady();
        LOG.info("embedded Redis started on port {} (data dir {})", port, dataDir == null ? "none" : dataDir);
        return server;
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited with "
                        + process.exitValue() + ": " + logTail());
            }
            if (answersPing()) {
                return;
            }
            sleep(20);
        }
        close();
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING within "
                + START_TIMEOUT_MS + " ms: " + logTail());
    }

    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] buffer = new byte[64];
            int n = socket.getInputStream().read(buffer);
            // "-LOADING" while an append-only file is replayed: not ready yet
            return n > 0 && new String(buffer, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private String logTail() {
        try {
            String text = Files.readString(logFile);
            return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static synchronized String executable() {
        if (executable == null) {
            String bundled = extractBundled();
            executable = bundled != null && runs(bundled) ? bundled : "redis-server";
            if (!executable.equals(bundled)) {
                LOG.warn("the bundled {} cannot run here; using redis-server from the PATH", BUNDLED);
            }
        }
        return executable;
    }

    /** Extracts the bundled binary once per machine (atomic move, so concurrent JVMs never see half a file). */
    private static String extractBundled() {
        try (InputStream in = EmbeddedRedis.class.getResourceAsStream("/" + BUNDLED)) {
            if (in == null) {
                return null;
            }
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "delayq-redis-" + System.getProperty("user.name"));
            Files.createDirectories(dir);
            Path target = dir.resolve(BUNDLED);
            if (Files.isExecutable(target) && Files.size(target) > 0) {
                return target.toString();
            }
            Path temp = Files.createTempFile(dir, BUNDLED, ".part");
            Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
            temp.toFile().setExecutable(true);
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target.toString();
        } catch (IOException e) {
            LOG.warn("cannot extract the bundled redis-server: {}", e.getMessage());
            return null;
        }
    }

    private static boolean runs(String binary) {
        try {
            Process p = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free local port: " + e.getMessage(), e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", e);
        }
    }
}
