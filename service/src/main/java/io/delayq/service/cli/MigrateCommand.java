package io.delayq.service.cli;

import io.delayq.core.AppliedMigration;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code java -jar delayq-service.jar migrate config.yml}: applies the missing schema migrations of the configured
 * store, then of the configured archive ({@code JobStoreFactory.migrate()}, {@code JobArchiveFactory.migrate()}), and
 * prints what ran for each:
 *
 * <pre>
 * store: up to date
 * archive: Applied V1: …
 * </pre>
 *
 * A store or archive without a schema of its own (Redis) is always up to date. Safe to run while the service runs and
 * to run again; the stores that support it also migrate at start-up (e.g. {@code archive.runMigrations}, on by
 * default).
 */
public class MigrateCommand extends ConfiguredCommand<DelayqConfiguration> {

    public MigrateCommand() {
        super("migrate", "Applies the configured store's and archive's missing schema migrations and prints what ran");
    }

    @Override
    protected void run(Bootstrap<DelayqConfiguration> bootstrap, Namespace namespace, DelayqConfiguration configuration) {
        report(System.out, "store", configuration.getStore().migrate());
        report(System.out, "archive", configuration.getArchive().migrate());
    }

    private static void report(PrintStream out, String what, List<AppliedMigration> ran) {
        if (ran.isEmpty()) {
            out.println(what + ": up to date");
        }
        for (AppliedMigration m : ran) {
            out.println(what + ": Applied V" + m.version() + ": " + m.description());
        }
    }
}
