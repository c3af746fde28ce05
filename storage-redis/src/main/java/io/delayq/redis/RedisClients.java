package io.delayq.redis;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Builds the store's Jedis clients: the one place where connection options become a client, for a standalone server
 * (the configured one, the embedded one, {@link RedisJobStore#connect}), Sentinel and a cluster alike. Every client
 * gets the same {@code timeout} (connect and socket) and the same pool: {@code poolSize} connections at most (per node
 * on a cluster), and a caller waits at most twice the timeout (at least 1 s) for one rather than queue forever.
 */
final class RedisClients {
    private RedisClients() {
    }

    /**
     * How clients connect.
     *
     * @param poolSize        connections at most (per node on a cluster)
     * @param timeout         connect and socket timeout of one call; on a cluster also the most one command spends
     *                        following redirections and retrying a node that does not answer
     * @param topologyRefresh (cluster) how often the client rereads the slot map on its own
     */
    record Options(int poolSize, Duration timeout, Duration topologyRefresh) {
        static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
        static final Duration DEFAULT_TOPOLOGY_REFRESH = Duration.ofSeconds(5);

        /** The configuration's defaults (2 s timeout, a slot-map reread every 5 s) with {@code poolSize}. */
        static Options defaults(int poolSize) {
            return new Options(poolSize, DEFAULT_TIMEOUT, DEFAULT_TOPOLOGY_REFRESH);
        }

        int timeoutMillis() {
            return (int) timeout.toMillis();
        }
    }

    /** A client for one server, from {@code redis[s]://[user:password@]host[:port][/database]}. */
    static UnifiedJedis standalone(String uri, Options options) {
        URI parsed = URI.create(uri);
        return RedisClient.builder()
                .hostAndPort(parsed.getHost(), parsed.getPort() < 0 ? 6379 : parsed.getPort())
                .clientConfig(clientConfig(parsed, options).build())
                .poolConfig(pool(options))
                .build();
    }

    /** A client for a cluster, from its seed nodes ({@link ClusterUri}). */
    static UnifiedJedis cluster(String uri, Options options) {
        ClusterUri parsed = ClusterUri.parse(uri);
        URI first = URI.create(parsed.scheme() + parsed.userInfo() + parsed.nodes().iterator().next());
        return RedisClusterClient.builder()
                .nodes(parsed.nodes())
                .clientConfig(clientConfig(first, options).build())
                .poolConfig(pool(options))
                // a failover or resharding is followed without an operator even by a client that only pipelines
                .topologyRefreshPeriod(options.topologyRefresh())
                // Jedis retries a command on a node that does not answer for up to 5 attempts of the socket timeout
                // (10 s at 2 s), so one call to a paused master would hold its caller that long: give up once the
                // timeout has passed instead (the caller gets UNAVAILABLE; MOVED and ASK are still followed within it)
                .maxTotalRetriesDuration(options.timeout())
                .build();
    }

    /** A client for the master that the sentinels at {@code sentinels} ({@code host:port}) name {@code masterName}. */
    static UnifiedJedis sentinel(String masterName, List<String> sentinels, String password, int database,
                                 Options options) {
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        sentinels.forEach(n -> nodes.add(HostAndPort.from(n)));
        DefaultJedisClientConfig.Builder master = DefaultJedisClientConfig.builder()
                .timeoutMillis(options.timeoutMillis())
                .database(database);
        if (password != null) {
            master.password(password);
        }
        return RedisSentinelClient.builder()
                .masterName(masterName)
                .sentinels(nodes)
                .clientConfig(master.build())
                .sentinelClientConfig(DefaultJedisClientConfig.builder().timeoutMillis(options.timeoutMillis()).build())
                .poolConfig(pool(options))
                .build();
    }

    private static GenericObjectPoolConfig<Connection> pool(Options options) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(options.poolSize());
        pool.setMaxIdle(options.poolSize());
        pool.setMaxWait(Duration.ofMillis(Math.max(1_000, options.timeout().toMillis() * 2)));
        return pool;
    }

    /** Timeout, TLS ({@code rediss}), user and password, and database, from a server's URI. */
    private static DefaultJedisClientConfig.Builder clientConfig(URI parsed, Options options) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .timeoutMillis(options.timeoutMillis())
                .ssl("rediss".equals(parsed.getScheme()));
        String userInfo = parsed.getUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                config.password(userInfo);
            } else {
                if (colon > 0) {
                    config.user(userInfo.substring(0, colon));
                }
                config.password(userInfo.substring(colon + 1));
            }
        }
        String path = parsed.getPath();
        if (path != null && path.length() > 1) {
            config.database(Integer.parseInt(path.substring(1)));
        }
        return config;
    }
}
