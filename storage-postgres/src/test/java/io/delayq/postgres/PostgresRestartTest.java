package io.delayq.postgres;

import io.delayq.core.JobStore;
import io.delayq.postgres.testing.EmbeddedPostgres;
import io.delayq.postgres.testing.TestPostgres;
import io.delayq.testing.StoreRestartContract;

import java.nio.file.Path;

/**
 * PostgreSQL crashing (SIGKILL of the postmaster) and coming back: every transition the store acknowledged was
 * committed ({@code synchronous_commit} on), so crash recovery replays it; the pool and the LISTEN connection recover
 * by themselves.
 */
class PostgresRestartTest extends StoreRestartContract<PostgresRestartTest.Server> {

    /** A private embedded PostgreSQL ({@link TestPostgres#startPrivate}), restarted on its data directory and port. */
    record Server(EmbeddedPostgres postgres) implements StoreRestartContract.RestartableServer {
        @Override
        public void kill() {
            postgres.kill();
        }

        @Override
        public void restart() {
            postgres.restart();
        }

        @Override
        public void close() {
            postgres.close();
        }
    }

    @Override
    protected Server startServer(Path dir) {
        return new Server(TestPostgres.startPrivate(dir));
    }

    @Override
    protected JobStore connect(Server server) {
        return PostgresJobStore.connect(server.postgres().jdbcUrl("postgres"), server.postgres().user(), "",
                PostgresStoreOptions.defaults());
    }

    @Override
    protected String serverName() {
        return "PostgreSQL";
    }
}
