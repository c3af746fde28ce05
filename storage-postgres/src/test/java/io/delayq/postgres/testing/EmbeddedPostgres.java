package io.delayq.postgres.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real PostgreSQL server process (version 16, from the zonky binaries jar) for tests and benchmarks.
 *
 * <p>Why not a mock or an in-memory database: the project's rule is that tests talk to real servers, and
 * the PostgreSQL JobStore's guarantees (locking, {@code SKIP LOCKED}, durability across a crash) only mean
 * something against the real thing. Why not Testcontainers: it needs a container runtime, this needs nothing
 * but the JVM and a jar of binaries.
 *
 * <p>{@link #start} unpacks the binaries (once per machine, see {@link PostgresBinaries}), runs initdb into
 * a fresh {@code baseDir/data}, starts {@code postgres} listening on 127.0.0.1 only (no Unix socket), and
 * returns once the server accepts a JDBC connection as user {@code postgres} (trust authentication, no
 * password). It creates nothing else: databases come from {@link #createDatabase}. The server's output goes
 * to {@code baseDir/postgres.log}, whose tail is in the message of every start failure.
 *
 * <p>The server runs with PostgreSQL's defaults (as initdb writes them) except {@code max_connections=300},
 * so that parallel tests do not run out of connections, and whatever the caller passes, which wins.
 *
 * <p>{@link #kill()} and {@link #restart()} let a test crash the server and bring it back on the same data
 * and port, to prove that a crash loses no acknowledged write. A shutdown hook stops a server still running
 * when the JVM exits normally, so a test run never leaves a postgres behind (a JVM killed with SIGKILL does).
 *
 * <p>When the JVM runs as root, which PostgreSQL refuses, initdb and postgres run as user {@code nobody}; see
 * {@link ServerUser}. The instance is thread-safe.
 */
public final class EmbeddedPostgres implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgres.class);
    private static final String USER = "postgres";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    private static final int LOG_TAIL_LINES = 30;

    private final Path baseDir;
    private final Path dataDir;
    private final Path logFile;
    private final Path bin;
    private volatile int port; // chosen once, in start()
    private final Map<String, String> settings;
    private final ServerUser serverUser;
    private final Thread shutdownHook;
    private Process postmaster;
    private boolean closed;

    private EmbeddedPostgres(Path baseDir, Path bin, Map<String, String> settings, ServerUser serverUser) {
        this.baseDir = baseDir;
        this.dataDir = baseDir.resolve("data");
        this.logFile = baseDir.resolve("postgres.log");
        this.bin = bin;
        this.settings = settings;
        this.serverUser = serverUser;
        this.shutdownHook = new Thread(this::stopQuietly, "embedded-postgres-stop");
    }

    /**
     * Starts a new server on a fresh data directory {@code baseDir/data} (which must not exist yet).
     *
     * @param baseDir  where the data directory and {@code postgres.log} go; created if missing
     * @param port     the TCP port on 127.0.0.1, or 0 for a free one
     * @param settings extra server settings, each passed as {@code -c name=value}; they override the defaults
     * @throws IllegalStateException if the server cannot be set up or does not accept connections within 30 s;
     *                               the message says why and ends with the tail of the server's log
     */
    public static EmbeddedPostgres start(Path baseDir, int port, Map<String, String> settings) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port);
        }
        long t0 = System.nanoTime();
        Path base = baseDir.toAbsolutePath();
        Map<String, String> all = new LinkedHashMap<>();
        all.put("max_connections", "300");
        all.putAll(settings);
        EmbeddedPostgres pg;
        try {
            ServerUser serverUser = ServerUser.forThisJvm();
            Path installation = PostgresBinaries.installation();
            serverUser.checkReachable(installation);
            Files.createDirectories(base);
            serverUser.checkReachable(base);
            pg = new EmbeddedPostgres(base, installation.resolve("bin"), all, serverUser);
            Files.createDirectory(pg.dataDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException e) {
            throw new IllegalStateException(base.resolve("data") + " already exists; start() needs a fresh data "
                    + "directory: delete it or pass another base directory", e);
        } catch (IOException e) {
            throw new IllegalStateException("cannot set up PostgreSQL in " + base + ": " + e, e);
        }
        // From here on the data directory is ours: on failure it goes (the log stays, and its tail is in the message).
        Runtime.getRuntime().addShutdownHook(pg.shutdownHook);
        try {
            pg.initdb();
            for (int attempt = 1; ; attempt++) {
                pg.port = port != 0 ? port : freePort();
                try {
                    pg.launch();
                    break;
                } catch (PortTakenException e) {
                    // A free port can be taken by another process between freePort() and postgres binding it.
                    if (port != 0 || attempt == 3) {
                        throw e;
                    }
                    LOG.info("port {} was taken before PostgreSQL could listen there; trying another", pg.port);
                }
            }
        } catch (IOException | RuntimeException e) {
            try {
                Runtime.getRuntime().removeShutdownHook(pg.shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is exiting anyway
            }
            pg.deleteDataQuietly();
            throw e instanceof IOException ? new IllegalStateException("cannot set up PostgreSQL in " + base + ": " + e, e)
                    : (RuntimeException) e;
        }
        LOG.info("PostgreSQL started on 127.0.0.1:{} as {} in {} ms (data {}, log {})", pg.port, pg.serverUser.describe(),
                (System.nanoTime() - t0) / 1_000_000, pg.dataDir, pg.logFile);
        return pg;
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>/<database>}; connect as {@link #user()} with no password. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** The TCP port on 127.0.0.1; it stays the same across {@link #kill()} and {@link #restart()}. */
    public int port() {
        return port;
    }

    /** The superuser, {@code postgres}; authentication is trust, so any (or no) password works. */
    public String user() {
        return USER;
    }

    /** Creates database {@code name} unless it exists (also safe when several threads or JVMs race to create it). */
    public void createDatabase(String name) {
        try (Connection c = connect("postgres")) {
            try (PreparedStatement exists = c.prepareStatement("select 1 from pg_database where datname = ?")) {
                exists.setString(1, name);
                try (ResultSet rs = exists.executeQuery()) {
                    if (rs.next()) {
                        return;
                    }
                }
            }
            try (Statement create = c.createStatement()) {
                create.execute("create database \"" + name.replace("\"", "\"\"") + "\"");
            } catch (SQLException e) {
                // 42P04 duplicate_database; a concurrent create can also trip the catalog's unique index (23505).
                if (!"42P04".equals(e.getSQLState()) && !"23505".equals(e.getSQLState())) {
                    throw e;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on " + jdbcUrl("postgres") + ": " + e, e);
        }
    }

    /**
     * Fast shutdown (SIGINT to the postmaster: open transactions are rolled back, sessions ended, a checkpoint
     * written), waiting until the server has exited and its port is free. Does nothing if it is not running.
     */
    public synchronized void stop() {
        if (postmaster == null) {
            return;
        }
        try {
            signal(postmaster.pid(), "INT");
            if (!postmaster.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("PostgreSQL on port {} did not stop within {} s; killing it", port, STOP_TIMEOUT.toSeconds());
                killPostmasterAndWait();
            }
            postmaster = null;
            awaitPortFree();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping PostgreSQL on port " + port, e);
        }
    }

    /**
     * Simulates a crash: SIGKILL to the postmaster, without a shutdown checkpoint. Its backends and auxiliary
     * processes notice the postmaster's death and exit by themselves; this waits until they all have and the
     * port is free, so that {@link #restart()} can follow at once (PostgreSQL refuses to start while a process
     * of the old server still holds its shared memory). The next start runs crash recovery from the WAL.
     */
    public synchronized void kill() {
        if (postmaster == null) {
            throw new IllegalStateException("PostgreSQL on port " + port + " is not running");
        }
        try {
            killPostmasterAndWait();
            postmaster = null;
            awaitPortFree();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing PostgreSQL on port " + port, e);
        }
    }

    /**
     * Starts the server again on the same data directory and port, after {@link #kill()} or {@link #stop()}
     * (stopping it first if it is still running), and waits until it accepts connections, crash recovery
     * included.
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("PostgreSQL on port " + port + " was closed");
        }
        stop();
        long t0 = System.nanoTime();
        launch();
        LOG.info("PostgreSQL restarted on 127.0.0.1:{} in {} ms", port, (System.nanoTime() - t0) / 1_000_000);
    }

    /** Stops the server and deletes its data directory ({@code postgres.log} stays, for post-mortems). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        stop();
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down
        }
        try {
            deleteTree(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dataDir, e);
        }
    }

    @Override
    public String toString() {
        return "EmbeddedPostgres[127.0.0.1:" + port + ", " + dataDir + "]";
    }

    // ---- internals ----

    private void initdb() throws IOException {
        // As root, the data directory (rwx------, as PostgreSQL demands) belongs to the server user, nobody.
        serverUser.own(dataDir);
        List<String> cmd = List.of(bin.resolve("initdb").toString(), "-D", dataDir.toString(), "-U", USER, "-A", "trust",
                "-E", "UTF8", "--locale=C", "--no-sync");
        Process p = processBuilder(cmd).start();
        try {
            if (!p.waitFor(2, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("initdb did not finish within 2 minutes" + logTail());
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running initdb", e);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("initdb failed with exit code " + p.exitValue() + " running as "
                    + serverUser.describe() + logTail());
        }
    }

    /** Starts the postmaster and waits until it accepts connections; on failure it is killed again. */
    private void launch() {
        if (!portIsFree()) {
            throw new PortTakenException("port " + port + " on 127.0.0.1 is in use; PostgreSQL cannot listen there");
        }
        List<String> cmd = new ArrayList<>(List.of(bin.resolve("postgres").toString(), "-D", dataDir.toString(),
                "-p", Integer.toString(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="));
        settings.forEach((name, value) -> {
            cmd.add("-c");
            cmd.add(name + "=" + value);
        });
        long logOffset;
        try {
            appendToLog("---- starting: " + String.join(" ", serverUser.command(cmd)) + "\n");
            logOffset = Files.size(logFile);
            postmaster = processBuilder(cmd).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cmd.get(0) + ": " + e, e);
        }
        try {
            awaitReady(logOffset);
        } catch (RuntimeException e) {
            try {
                killPostmasterAndWait();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            postmaster = null;
            throw e;
        }
    }

    /** Waits until the server accepts connections; {@code logOffset} is where its output starts in the log. */
    private void awaitReady(long logOffset) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!postmaster.isAlive()) {
                String message = "PostgreSQL exited with code " + postmaster.exitValue() + " while starting on port "
                        + port + " as " + serverUser.describe() + logTail();
                throw logSince(logOffset).contains("Address already in use") ? new PortTakenException(message)
                        : new IllegalStateException(message);
            }
            try (Connection c = connect("postgres")) {
                return;
            } catch (SQLException e) {
                last = e; // not listening yet, or "the database system is starting up" during recovery
            }
            sleep(50);
        }
        throw new IllegalStateException("PostgreSQL on port " + port + " did not accept a connection within "
                + READY_TIMEOUT.toSeconds() + " s (last error: " + last + ")" + logTail());
    }

    private Connection connect(String database) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("password", "");
        props.setProperty("connectTimeout", "5");
        props.setProperty("socketTimeout", "60");
        return DriverManager.getConnection(jdbcUrl(database), props);
    }

    /**
     * SIGKILLs the postmaster and waits for it and all the processes it had forked. They are not the JVM's
     * children, so they are watched through their pids; one that has exited but was not reaped yet (a zombie)
     * holds no shared memory any more and counts as gone.
     */
    private void killPostmasterAndWait() throws InterruptedException {
        List<ProcessHandle> children = postmaster.descendants().toList();
        postmaster.destroyForcibly();
        postmaster.waitFor();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (ProcessHandle child : children) {
            while (!gone(child)) {
                if (System.nanoTime() > deadline) {
                    LOG.warn("PostgreSQL process {} outlived its postmaster by 30 s; killing it", child.pid());
                    child.destroyForcibly();
                    deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                }
                Thread.sleep(20);
            }
        }
    }

    private static boolean gone(ProcessHandle process) {
        if (!process.isAlive()) {
            return true;
        }
        try {
            String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) == 'Z';
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private void awaitPortFree() {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!portIsFree()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("port " + port + " is still in use 30 s after PostgreSQL exited");
            }
            sleep(20);
        }
    }

    private boolean portIsFree() {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private ProcessBuilder processBuilder(List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(serverUser.command(cmd))
                .directory(baseDir.toFile()) // reachable by the server user, unlike perhaps the JVM's working directory
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("PG")); // PGDATA, PGPORT, PGOPTIONS... would change what runs
        env.put("LC_ALL", "C"); // English messages in the log, whatever the machine's locale
        return pb;
    }

    private static void signal(long pid, String signal) throws InterruptedException {
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid)).redirectErrorStream(true).start();
            kill.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            kill.waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send SIG" + signal + " to " + pid, e);
        }
    }

    private void deleteDataQuietly() {
        try {
            deleteTree(dataDir);
        } catch (IOException e) {
            LOG.warn("could not delete {}: {}", dataDir, e.toString());
        }
    }

    private void stopQuietly() {
        try {
            stop();
        } catch (RuntimeException e) {
            LOG.warn("could not stop PostgreSQL on port {}: {}", port, e.toString());
        }
    }

    private void appendToLog(String line) throws IOException {
        Files.writeString(logFile, line, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }

    private String logSince(long offset) {
        try (var in = Files.newInputStream(logFile)) {
            in.skipNBytes(offset);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return "\n---- last lines of " + logFile + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return " (no log at " + logFile + ": " + e + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for PostgreSQL", e);
        }
    }

    /** The server could not listen on its port because something else does. */
    private static final class PortTakenException extends IllegalStateException {
        PortTakenException(String message) {
            super(message);
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
