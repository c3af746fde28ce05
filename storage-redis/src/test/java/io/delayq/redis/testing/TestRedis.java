package io.delayq.redis.testing;

import io.delayq.redis.EmbeddedRedis;

/**
 * The Redis every test in the project uses (shipped in storage-redis's test-jar): {@code REDIS_URL} when set, else one
 * embedded {@code redis-server} per JVM on a free port without persistence, started on first use and stopped when the
 * JVM exits. Tests share it by working in their own topics; nothing is flushed.
 */
public final class TestRedis {
    private static volatile EmbeddedRedis shared;

    private TestRedis() {
    }

    /** {@code REDIS_URL}, or the URI of the JVM's shared embedded server. */
    public static String sharedUri() {
        String env = System.getenv("REDIS_URL");
        if (env != null && !env.isBlank()) {
            return env;
        }
        EmbeddedRedis server = shared;
        if (server == null) {
            synchronized (TestRedis.class) {
                server = shared;
                if (server == null) {
                    server = EmbeddedRedis.start(0, null, false);
                    shared = server;
                }
            }
        }
        return server.uri();
    }
}
