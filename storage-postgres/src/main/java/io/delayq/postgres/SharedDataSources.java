package io.delayq.postgres;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * Where this module connects to PostgreSQL, in every mode (the service's store and archive, {@code connect} for tools
 * and tests, the {@code migrate} command), from one {@link DataSourceFactory}: one connection pool per database and
 * user in this process, shared by whatever uses it and closed when the last of them lets go, and the store's one
 * unpooled connection for LISTEN ({@link #openUnpooled}) with the pool's settings.
 *
 * <p>Store and archive on one database need one pool, not two: two pools double the idle connections the server
 * holds for one service instance, and split the {@code max_connections} budget between halves that cannot lend to
 * each other. A pool is keyed by its JDBC URL and user; the first {@link #acquire} builds it from its
 * {@link DataSourceFactory} (so its pool sizes and timeouts are those of the first user: the store, in the service),
 * later ones share it. A later user with another password for the same user and URL is refused: one of the two
 * configurations is wrong, and sharing would hide which.
 */
public final class SharedDataSources {
    private static final Logger LOG = LoggerFactory.getLogger(SharedDataSources.class);
    /** The pool's name (tomcat-jdbc's, in its threads and JMX): the same whoever built it. */
    static final String POOL_NAME = "delayq-postgres";
    private static final Map<Key, Pool> POOLS = new HashMap<>();

    private SharedDataSources() {
    }

    private record Key(String url, String user) {
        static Key of(DataSourceFactory database) {
            return new Key(Objects.requireNonNull(database.getUrl(), "database.url"),
                    Objects.requireNonNullElse(database.getUser(), ""));
        }
    }

    private static final class Pool {
        final ManagedDataSource dataSource;
        final DataSourceFactory builtFrom;
        int users;

        Pool(ManagedDataSource dataSource, DataSourceFactory builtFrom) {
            this.dataSource = dataSource;
            this.builtFrom = builtFrom;
        }
    }

    /**
     * The pool for {@code database}'s URL and user, built on first use (with {@code metrics}); release it with
     * {@link Lease#close()}.
     *
     * @param user who uses it, for the log ("job store", "archive")
     * @throws IllegalArgumentException when the pool exists with another password
     */
    public static synchronized Lease acquire(DataSourceFactory database, MetricRegistry metrics, String user) {
        Key key = Key.of(database);
        Pool pool = POOLS.get(key);
        if (pool == null) {
            pool = new Pool(database.build(metrics, POOL_NAME), database);
            POOLS.put(key, pool);
        } else if (pool.builtFrom != database) {
            if (!Objects.equals(pool.builtFrom.getPassword(), database.getPassword())) {
                throw new IllegalArgumentException("two configurations name PostgreSQL database " + key.url()
                        + " and user " + key.user() + " with different passwords; give the " + user
                        + " the same database settings as the other (or leave its database out to share the store's)");
            }
            if (pool.builtFrom.getMaxSize() != database.getMaxSize()
                    || !pool.builtFrom.getProperties().equals(database.getProperties())) {
                LOG.info("The {} shares the connection pool of {} (user {}), built from the first configuration that"
                        + " named it: its own pool size and driver properties are not used", user, key.url(),
                        key.user());
            }
        }
        pool.users++;
        return new Lease(key, pool);
    }

    /**
     * A plain driver connection with the pool's URL, user, password and driver properties, outside the pool: the
     * store's LISTEN connection, held for as long as the store lives, which a pool would count as one of its own.
     */
    static Connection openUnpooled(DataSourceFactory database) throws SQLException {
        Properties props = new Properties();
        props.putAll(database.getProperties());
        if (database.getUser() != null) {
            props.setProperty("user", database.getUser());
        }
        if (database.getPassword() != null) {
            props.setProperty("password", database.getPassword());
        }
        return DriverManager.getConnection(database.getUrl(), props);
    }

    /** How many users hold the pool of this URL and user now (0 when there is none): for diagnostics and tests. */
    public static synchronized int users(String url, String user) {
        Pool pool = POOLS.get(new Key(url, Objects.requireNonNullElse(user, "")));
        return pool == null ? 0 : pool.users;
    }

    private static synchronized void release(Key key, Pool pool) {
        pool.users--;
        if (pool.users > 0) {
            return;
        }
        POOLS.remove(key, pool);
        try {
            pool.dataSource.stop();
        } catch (Exception e) {
            LOG.debug("closing the PostgreSQL pool of {}: {}", key.url(), e.toString());
        }
    }

    /** One user's hold on a shared pool. Closing it twice releases it once. */
    public static final class Lease implements AutoCloseable {
        private final Key key;
        private final Pool pool;
        private boolean released;

        private Lease(Key key, Pool pool) {
            this.key = key;
            this.pool = pool;
        }

        public DataSource dataSource() {
            return pool.dataSource;
        }

        @Override
        public void close() {
            synchronized (SharedDataSources.class) {
                if (released) {
                    return;
                }
                released = true;
                release(key, pool);
            }
        }
    }
}
