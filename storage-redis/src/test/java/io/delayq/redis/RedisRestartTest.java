package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.testing.StoreRestartContract;

import java.nio.file.Path;

/** Redis crashing and coming back: with an append-only file fsynced on every write, nothing accepted is lost. */
class RedisRestartTest extends StoreRestartContract<RedisRestartTest.Server> {

    /** The bundled redis-server with an append-only file in a directory of the test's, on a port that stays. */
    static final class Server implements StoreRestartContract.RestartableServer {
        private final Path dir;
        private final int port;
        private EmbeddedRedis redis;

        Server(Path dir) {
            this.dir = dir;
            this.redis = EmbeddedRedis.start(0, dir, true);
            this.port = redis.port();
        }

        @Override
        public void kill() {
            redis.kill(); // SIGKILL: only what Redis fsynced before answering is left
        }

        @Override
        public void restart() {
            redis = EmbeddedRedis.start(port, dir, true);
        }

        @Override
        public void close() {
            redis.close();
        }
    }

    @Override
    protected Server startServer(Path dir) {
        return new Server(dir);
    }

    @Override
    protected JobStore connect(Server server) {
        return RedisJobStore.connect(server.redis.uri());
    }

    @Override
    protected String serverName() {
        return "Redis";
    }
}
