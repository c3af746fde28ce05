package io.delayq.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} process, for the embedded mode of the service and for tests (the tests' shared
 * server is {@code io.delayq.redis.testing.TestRedis} in this module's test-jar).
 *
 * <p>The binary is {@link RedisServerBinary}'s; the process binds 127.0.0.1 only and is stopped when {@link #close()}
 * is called or the JVM exits. The few commands this class sends itself (is it up, whose is it) go through
 * {@link RespProbe}, without a client library. What stays here is one concern: the server's process, launched or
 * adopted, until it is stopped.
 *
 * <p>With a {@code dataDir} and {@code appendOnly}, every write is in the append-only file with
 * {@code appendfsync always} before Redis answers it, so a job the store accepted survives a restart of the server.
 *
 * <p><b>Owned or adopted.</b> A {@code kill -9} of the JVM runs no shutdown hook, so the server it started keeps
 * running (with every job in memory and in its append-only file). With a {@code dataDir}, the server writes its
 * pid to {@value #PID_FILE} there (and removes it when it stops cleanly). {@link #start} first looks at the port: a
 * server there whose pid is the one in that file, i.e. the server a previous run left on this data directory, is
 * <i>adopted</i> (logged as such, given this run's {@code appendonly} / {@code appendfsync}) and from then on owned
 * like one this JVM started, so {@link #close()} stops it. Anything else answering on the port is refused with a
 * message saying so, rather than used as if it were ours.
 */
public final class EmbeddedRedis implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRedis.class);
    private static final long START_TIMEOUT_MS = 15_000;
    /** File in the data directory where the server writes its pid (removed by the server when it stops cleanly). */
    public static final String PID_FILE = "redis-server.pid";

    private final int port;
    /** The server's process: a child of this JVM, or the adopted server of a previous run. */
    private final ProcessHandle process;
    /** The child process when this JVM started it (its exit code), else null. */
    private final Process child;
    private final Path logFile;
    private final boolean adopted;
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile long exitGraceMs;

    private EmbeddedRedis(int port, ProcessHandle process, Process child, Path logFile, boolean adopted) {
        this.port = port;
        this.process = process;
        this.child = child;
        this.logFile = logFile;
        this.adopted = adopted;
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
        if (port != 0) {
            EmbeddedRedis previous = adoptOrRefuse(port, dataDir, appendOnly, appendFsync);
            if (previous != null) {
                return previous;
            }
        }
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

    /** The server's process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether this server was left running by a previous owner and adopted by {@link #start}. */
    public boolean isAdopted() {
        return adopted;
    }

    /** Kills the server at once (SIGKILL), as a crash would: nothing is flushed beyond what is already fsynced. */
    public void kill() {
        process.destroyForcibly();
        awaitExit(10_000);
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
        if (!awaitExit(10_000)) {
            process.destroyForcibly();
            awaitExit(5_000);
        }
    }

    /** @return whether the process has exited within {@code ms} */
    private boolean awaitExit(long ms) {
        try {
            process.onExit().get(ms, TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    private static EmbeddedRedis launch(int port, Path dataDir, boolean appendOnly, String appendFsync, List<String> extraArgs) {
        List<String> command = new ArrayList<>(List.of(RedisServerBinary.path(),
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
                    "--pidfile", dataDir.toAbsolutePath().resolve(PID_FILE).toString(),
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
        EmbeddedRedis server = new EmbeddedRedis(port, process.toHandle(), process, log, false);
        server.stopAtExit();
        server.awaitReady();
        LOG.info("embedded Redis started on port {} (pid {}, data dir {})", port, process.pid(),
                dataDir == null ? "none" : dataDir);
        return server;
    }

    private void stopAtExit() {
        Runtime.getRuntime().addShutdownHook(new Thread(this::closeAtExit, "embedded-redis-" + port + "-stop"));
    }

    /**
     * What answers on {@code port} before a server is launched there: nothing (null: launch one); the server a
     * previous owner left on {@code dataDir} (adopted and returned); or something else (refused).
     */
    private static EmbeddedRedis adoptOrRefuse(int port, Path dataDir, boolean appendOnly, String appendFsync) {
        RespProbe.ServerInfo found = RespProbe.serverInfo(port);
        if (found == null) {
            return null; // nothing listens there
        }
        long recorded = dataDir == null ? -1 : recordedPid(dataDir.resolve(PID_FILE));
        Optional<ProcessHandle> handle = recorded < 0 ? Optional.empty() : ProcessHandle.of(recorded);
        if (found.pid() < 0 || found.pid() != recorded || handle.isEmpty() || !handle.get().isAlive()) {
            throw new IllegalStateException("port " + port + " of 127.0.0.1 is already in use"
                    + (found.pid() < 0 ? " (" + found.description() + ")" : " by a Redis server with pid " + found.pid())
                    + ", which is not the embedded Redis of "
                    + (dataDir == null ? "this process" : "data dir " + dataDir.toAbsolutePath()
                    + " (its " + PID_FILE + " names " + (recorded < 0 ? "no process" : "pid " + recorded) + ")")
                    + "; stop that program, choose another embedded port (0 = any free port), or point the store's uri"
                    + " at that server if it is the one you mean");
        }
        EmbeddedRedis server = new EmbeddedRedis(port, handle.get(), null, null, true);
        server.stopAtExit();
        server.awaitReady();
        if (appendOnly) {
            // this run's persistence settings, which may differ from those the server was started with
            RespProbe.configSet(port, "appendfsync", appendFsync);
        }
        RespProbe.configSet(port, "appendonly", appendOnly ? "yes" : "no");
        LOG.info("embedded Redis: adopted the server already running on port {} (pid {}, data dir {}), left by a"
                        + " previous run that did not stop it (killed?); this run owns it now and stops it when it stops",
                port, recorded, dataDir.toAbsolutePath());
        return server;
    }

    private static long recordedPid(Path pidFile) {
        try {
            return Long.parseLong(Files.readString(pidFile, StandardCharsets.US_ASCII).trim());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited"
                        + (child == null ? "" : " with " + child.exitValue()) + ": " + logTail());
            }
            // Ready when it answers PING, and it is ours answering: a server another program left on the port would
            // answer too, while ours exits with "Address already in use".
            if (RespProbe.answersPing(port) && RespProbe.pidOf(port) == process.pid()) {
                return;
            }
            sleep(20);
        }
        close();
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING within "
                + START_TIMEOUT_MS + " ms: " + logTail());
    }

    private String logTail() {
        if (logFile == null) {
            return "(an adopted server: its log is wherever its first owner put it)";
        }
        try {
            String text = Files.readString(logFile);
            return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
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
