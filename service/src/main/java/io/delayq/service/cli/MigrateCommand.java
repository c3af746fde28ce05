package io.delayq.service.cli;

import io.delayq.core.archive.JobArchiveFactory;
import io.delayq.core.AppliedMigration;
import io.delayq.migrations.Migrations;
import io.delayq.mongo.MongoJobArchiveFactory;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;

import java.util.List;
import java.util.function.Function;

/**
 * {@code java -jar delayq-service.jar migrate config.yml}: applies the archive's missing schema migrations (see
 * migrations/README.md) to the configured archive and prints what ran. Safe to run while the service runs and to
 * run again; with {@code archive.runMigrations: true} (the default) the service does the same at start-up.
 */
public class MigrateCommand extends ConfiguredCommand<DelayqConfiguration> {
    private final Function<DelayqConfiguration, JobArchiveFactory> archiveOf;

    public MigrateCommand(Function<DelayqConfiguration, JobArchiveFactory> archiveOf) {
        super("migrate", "Applies missing schema migrations to the archive (MongoDB) and prints what ran");
        this.archiveOf = archiveOf;
    }

    @Override
    protected void run(Bootstrap<DelayqConfiguration> bootstrap, Namespace namespace, DelayqConfiguration configuration) {
        JobArchiveFactory factory = archiveOf.apply(configuration);
        if (!(factory instanceof MongoJobArchiveFactory mongo)) {
            System.out.println("The configured archive (" + factory.getClass().getSimpleName()
                    + ") has no schema migrations; nothing to do.");
            return;
        }
        try (var connection = mongo.connect()) {
            List<AppliedMigration> ran = Migrations.apply(connection.database());
            for (AppliedMigration m : ran) {
                System.out.println("Applied V" + m.version() + ": " + m.description());
            }
            System.out.println(ran.isEmpty()
                    ? "The archive schema is up to date (V" + Migrations.latestVersion() + ")."
                    : "Applied " + ran.size() + " migration(s); the archive schema is at V" + Migrations.latestVersion() + ".");
        }
    }
}
