package io.delayq.bench;

import io.delayq.postgres.testing.EmbeddedPostgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The benchmark's private PostgreSQL: a fresh server started through storage-postgres's {@link EmbeddedPostgres}
 * (PostgreSQL 16 from the zonky binaries jar) on a free loopback port, never the machine's own PostgreSQL. It runs
 * with PostgreSQL's defaults as initdb writes them, except {@code max_connections=300} (EmbeddedPostgres's one
 * change): fsync, synchronous_commit and full_page_writes are on. {@link #settings()} reads back what matters.
 *
 * <p>Every run gets a database of its own ({@link #freshDatabase}), dropped when the next one of the same owner is
 * made, so that each starts from empty tables and statistics.
 *
 * <p>Server-side cost of a run: {@link #cpuMs()} is the CPU time of every PostgreSQL process (the postmaster, its
 * live children and, through the postmaster's {@code cutime}/{@code cstime}, the children that exited: backends of
 * closed connections, autovacuum workers) from {@code /proc}; {@link #walBytes()} is the WAL insert position, whose
 * delta is the WAL written.
 */
public final class BenchPostgres implements AutoCloseable {
    public static final String USER = "postgres";
    private static final List<String> REPORTED_SETTINGS = List.of("shared_buffers", "fsync", "synchronous_commit",
            "full_page_writes", "wal_level", "max_wal_size", "checkpoint_timeout", "autovacuum_naptime",
            "autovacuum_vacuum_scale_factor", "work_mem", "max_connections");

    private final EmbeddedPostgres server;
    private final Path baseDir;
    private final Connection admin;
    private final String version;
    private final long postmasterPid;
    private final long clockTicks;
    private final AtomicInteger databases = new AtomicInteger();
    private final Map<String, String> current = new LinkedHashMap<>();

    private BenchPostgres(EmbeddedPostgres server, Path baseDir) throws SQLException {
        this.server = server;
        this.baseDir = baseDir;
        this.admin = connect("postgres");
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("select version(), pg_backend_pid()")) {
            rs.next();
            this.version = rs.getString(1);
            this.postmasterPid = parentOf(rs.getLong(2));
        }
        long ticks = 100;
        try {
            ticks = Long.parseLong(Machine.run("getconf", "CLK_TCK").trim());
        } catch (NumberFormatException e) {
            // Linux's USER_HZ is 100 almost everywhere
        }
        this.clockTicks = ticks;
    }

    /** Starts a server in a temporary directory, with PostgreSQL's defaults but for {@code settings} (diagnostics). */
    public static BenchPostgres start(Map<String, String> settings) throws IOException, SQLException {
        Path dir = Files.createTempDirectory("delayq-bench-postgres");
        EmbeddedPostgres pg = EmbeddedPostgres.start(dir, 0, settings);
        try {
            return new BenchPostgres(pg, dir);
        } catch (SQLException | RuntimeException e) {
            pg.close();
            throw e;
        }
    }

    public int port() {
        return server.port();
    }

    /** e.g. "PostgreSQL 16.9 on x86_64-pc-linux-gnu, compiled by gcc …". */
    public String version() {
        return version;
    }

    /** Short description for the report. */
    public String description() {
        String v = version.contains(",") ? version.substring(0, version.indexOf(',')) : version;
        return v + " (zonky embedded binaries, started by the harness on 127.0.0.1:" + port() + ")";
    }

    /** The settings that decide durability and vacuum, as the server reports them. */
    public synchronized Map<String, String> settings() {
        Map<String, String> out = new LinkedHashMap<>();
        try (Statement s = admin.createStatement();
             ResultSet rs = s.executeQuery("select name, setting, coalesce(unit, '') from pg_settings where name in ("
                     + String.join(",", REPORTED_SETTINGS.stream().map(n -> "'" + n + "'").toList()) + ")")) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getString(2) + unit(rs.getString(3)));
            }
        } catch (SQLException e) {
            out.put("error", e.getMessage());
        }
        Map<String, String> ordered = new LinkedHashMap<>();
        REPORTED_SETTINGS.forEach(k -> {
            if (out.containsKey(k)) {
                ordered.put(k, out.get(k));
            }
        });
        return ordered;
    }

    private static String unit(String u) {
        return switch (u) {
            case "" -> "";
            case "8kB" -> " × 8kB";
            default -> " " + u;
        };
    }

    /**
     * Drops the database {@code owner} used last (if any) and creates a new, empty one.
     *
     * @return its name
     */
    public synchronized String freshDatabase(String owner) throws SQLException {
        dropDatabaseOf(owner);
        String name = ("bench_" + owner.replaceAll("[^A-Za-z0-9]", "_") + "_" + databases.incrementAndGet()).toLowerCase();
        server.createDatabase(name);
        current.put(owner, name);
        return name;
    }

    /** Drops the database {@code owner} used last; its connections are ended. */
    public synchronized void dropDatabaseOf(String owner) throws SQLException {
        String old = current.remove(owner);
        if (old != null) {
            // Clients that just closed their connections may not have been served yet: give their backends a moment
            // to end by themselves, so that FORCE ends none that is only on its way out.
            long deadline = System.currentTimeMillis() + 2_000;
            try (PreparedStatement ps = admin.prepareStatement("select count(*) from pg_stat_activity where datname = ?")) {
                ps.setString(1, old);
                while (System.currentTimeMillis() < deadline) {
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        if (rs.getLong(1) == 0) {
                            break;
                        }
                    }
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            try (Statement s = admin.createStatement()) {
                s.execute("drop database if exists \"" + old + "\" with (force)");
            }
        }
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>/<db>} (user {@value #USER}, no password). */
    public String jdbcUrl(String database) {
        return server.jdbcUrl(database);
    }

    /** {@code postgres://postgres@127.0.0.1:<port>/<db>} for node-postgres. */
    public String nodeUrl(String database) {
        return "postgres://" + USER + "@127.0.0.1:" + port() + "/" + database;
    }

    public Connection connect(String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", USER);
        p.setProperty("password", "");
        return DriverManager.getConnection(server.jdbcUrl(database), p);
    }

    /** CPU time of all PostgreSQL processes since the server started, ms. */
    public double cpuMs() {
        long ticks = ticksOf(postmasterPid, true);
        for (long child : ProcessHandle.of(postmasterPid).map(h -> h.children().map(ProcessHandle::pid).toList())
                .orElse(List.of())) {
            ticks += ticksOf(child, true);
        }
        return ticks * 1000.0 / clockTicks;
    }

    /** The WAL insert position, bytes. */
    public synchronized long walBytes() {
        try (Statement s = admin.createStatement();
             ResultSet rs = s.executeQuery("select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the WAL position: " + e.getMessage(), e);
        }
    }

    /** Size of every table of the database with its indexes and TOAST (pg_total_relation_size), system schemas aside. */
    public long storedBytes(String database) {
        try (Connection c = connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint from pg_class c "
                     + "join pg_namespace n on n.oid = c.relnamespace where c.relkind in ('r', 'm') "
                     + "and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot measure the tables of " + database + ": " + e.getMessage(), e);
        }
    }

    /** One reading of a table's statistics (pg_stat_user_tables) and size. */
    public record TableStats(long liveTuples, long deadTuples, long bytes, long autovacuums, long vacuums) {
    }

    /** Statistics of {@code table} (schema-qualified, as text for regclass) in {@code c}'s database. */
    public static TableStats tableStats(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select n_live_tup, n_dead_tup, pg_total_relation_size(relid), "
                + "autovacuum_count, vacuum_count from pg_stat_user_tables where relid = ?::regclass")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no statistics for table " + table);
                }
                return new TableStats(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5));
            }
        }
    }

    /** A baseline for a run's server-side cost. */
    public record Mark(double cpuMs, long wal, long bytes, String database) {
    }

    public Mark mark(String database) {
        long bytes = database == null ? 0 : storedBytes(database);
        return new Mark(cpuMs(), walBytes(), bytes, database);
    }

    /**
     * A run's cost since {@code m} per job: {@code pg_cpu_ms_per_1k}, {@code pg_wal_bytes_per_job}, and with
     * {@code bytes} the growth of the database's tables per job ({@code bytes_per_job}).
     */
    public Map<String, Double> costSince(Mark m, long jobs, boolean bytes) {
        Map<String, Double> out = new LinkedHashMap<>();
        since(m).into(out, "", jobs);
        if (bytes && m.database() != null) {
            out.put("bytes_per_job", (storedBytes(m.database()) - m.bytes()) / (double) jobs);
        }
        return out;
    }

    /** PostgreSQL's CPU time and WAL since {@code m}. */
    public Spent since(Mark m) {
        return new Spent(cpuMs() - m.cpuMs(), walBytes() - m.wal());
    }

    /** What a run cost PostgreSQL: CPU ms of all its processes, WAL bytes written. */
    public record Spent(double cpuMs, long walBytes) {
        /** {@code <prefix>pg_cpu_ms_per_1k} and {@code <prefix>pg_wal_bytes_per_job}. */
        public void into(Map<String, Double> metrics, String prefix, long jobs) {
            metrics.put(prefix + "pg_cpu_ms_per_1k", cpuMs / (jobs / 1000.0));
            metrics.put(prefix + "pg_wal_bytes_per_job", walBytes / (double) jobs);
        }
    }

    private static long parentOf(long pid) {
        String[] f = stat(pid);
        if (f == null) {
            throw new IllegalStateException("cannot read /proc/" + pid + "/stat");
        }
        return Long.parseLong(f[1]);
    }

    /** utime + stime (+ cutime + cstime), in clock ticks; 0 when the process is gone. */
    private static long ticksOf(long pid, boolean withChildren) {
        String[] f = stat(pid);
        if (f == null) {
            return 0;
        }
        // fields after "(comm) ": [0]=state [1]=ppid … [11]=utime [12]=stime [13]=cutime [14]=cstime
        long t = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        if (withChildren) {
            t += Long.parseLong(f[13]) + Long.parseLong(f[14]);
        }
        return t;
    }

    /** The fields of /proc/pid/stat after the command name, or null. */
    private static String[] stat(long pid) {
        try {
            String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    @Override
    public synchronized void close() {
        for (String owner : new ArrayList<>(current.keySet())) {
            try {
                dropDatabaseOf(owner);
            } catch (SQLException ignored) {
                // the server goes anyway
            }
        }
        try {
            admin.close();
        } catch (SQLException ignored) {
            // closing anyway
        }
        server.close();
        try (var files = Files.walk(baseDir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // only the server's log is left
        }
    }
}
