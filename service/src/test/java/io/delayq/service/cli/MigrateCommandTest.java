package io.delayq.service.cli;

import io.delayq.postgres.testing.TestPostgres;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code migrate config.yml} applies the store's and the archive's missing migrations and says what ran for each. */
class MigrateCommandTest {
    @TempDir
    Path dir;

    @Test
    void appliesTheMissingMigrationsOnceAndReportsThemPerStore() throws Exception {
        // Redis has no schema of its own (nothing connects to it: the uri points nowhere); the archive has V1 and V2
        Path config = config("""
                type: redis
                uri: redis://127.0.0.1:1
                """, "dataDir: " + dir.resolve("mongo"));

        String first = migrate(config);
        String second = migrate(config);

        assertThat(report(first)).satisfiesExactly(
                line -> assertThat(line).isEqualTo("store: up to date"),
                line -> assertThat(line).startsWith("archive: Applied V1: ").hasSizeGreaterThan(25),
                line -> assertThat(line).startsWith("archive: Applied V2: ").hasSizeGreaterThan(25),
                line -> assertThat(line).startsWith("archive: Applied V3: ").hasSizeGreaterThan(25));
        assertThat(report(second)).containsExactly("store: up to date", "archive: up to date");
    }

    /** A store with a schema of its own: the command runs its migrations too (on the shared test PostgreSQL). */
    @Test
    void migratesTheStoreToo() throws Exception {
        Path config = config("""
                type: postgres
                database:
                  url: %s
                  user: %s
                  password: "%s"
                """.formatted(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password()),
                "persistent: false");

        String first = migrate(config);
        String second = migrate(config);

        // the shared database may have been migrated by a service started before this test: then V1 is not new
        assertThat(report(first)).first().satisfies(line -> assertThat(line)
                .matches("store: (Applied V1: .+|up to date)"));
        assertThat(report(second)).contains("store: up to date");
    }

    /** A configuration file with this {@code store:} block and an embedded archive on a free port. */
    private Path config(String store, String archiveEmbedded) throws Exception {
        return Files.writeString(dir.resolve("config.yml"), """
                store:
                %s
                delivery:
                  signingSecret: s
                archive:
                  type: mongo
                  embedded:
                    port: 0
                    %s
                logging:
                  level: WARN
                """.formatted(store.indent(2).stripTrailing(), archiveEmbedded));
    }

    /** The command's own lines, without any log lines that went to the console. */
    private static List<String> report(String out) {
        return out.lines().filter(l -> l.startsWith("store: ") || l.startsWith("archive: ")).toList();
    }

    private static String migrate(Path config) throws Exception {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        var application = new DelayqApplication();
        var bootstrap = new Bootstrap<DelayqConfiguration>(application);
        application.initialize(bootstrap);
        var cli = new Cli(new JarLocation(MigrateCommandTest.class), bootstrap,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        Optional<Throwable> failure;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            failure = cli.run("migrate", config.toString());
        } finally {
            System.setOut(stdout);
        }
        assertThat(failure).as(err.toString(StandardCharsets.UTF_8)).isEmpty();
        return out.toString(StandardCharsets.UTF_8);
    }
}
