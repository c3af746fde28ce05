package io.delayq.service.admin;

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
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code migrate config.yml} applies the archive's migrations once and says so. */
class MigrateCommandTest {
    @TempDir
    Path dir;

    @Test
    void appliesTheArchiveMigrationsOnceAndReportsThem() throws Exception {
        Path config = dir.resolve("config.yml");
        Files.writeString(config, """
                store:
                  type: redis
                  uri: redis://127.0.0.1:1
                delivery:
                  signingSecret: s
                archive:
                  type: mongo
                  embedded:
                    port: 0
                    dataDir: %s
                logging:
                  level: WARN
                """.formatted(dir.resolve("mongo")));

        String first = migrate(config);
        String second = migrate(config);

        assertThat(first).contains("Applied V1");
        assertThat(second).contains("up to date");
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
