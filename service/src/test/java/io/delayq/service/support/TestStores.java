package io.delayq.service.support;

import io.delayq.postgres.testing.TestPostgres;
import io.delayq.redis.testing.TestRedis;
import io.dropwizard.testing.ConfigOverride;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The job stores the service's end-to-end tests can run on, selected by the system property
 * {@value #PROPERTY} ({@code redis} unless set, or {@code postgres}). Each one is the {@code ConfigOverride}s that
 * point test-config.yml's {@code store:} block at that store's shared test server.
 */
public enum TestStores {
    /** {@code store: {type: redis, uri: <the shared test Redis>}}. */
    REDIS {
        @Override
        public List<ConfigOverride> overrides() {
            return List.of(ConfigOverride.config("store.uri", TestRedis::sharedUri));
        }
    },

    /**
     * {@code store: {type: postgres, database: {url, user, password}}} of the shared test PostgreSQL (storage-postgres's
     * test-jar: one embedded server per JVM, or {@code DELAYQ_TEST_POSTGRES_URL}).
     */
    POSTGRES {
        @Override
        public List<ConfigOverride> overrides() {
            return List.of(ConfigOverride.config("store.type", type()),
                    ConfigOverride.config("store.database.url", TestPostgres::sharedJdbcUrl),
                    ConfigOverride.config("store.database.user", TestPostgres::user),
                    ConfigOverride.config("store.database.password", TestPostgres::password));
        }
    };

    /** The system property that selects the store; surefire's {@code e2e-on-postgres} execution sets it. */
    public static final String PROPERTY = "delayq.test.store";

    /** The {@code store.type} this store has in a configuration. */
    public String type() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The overrides that put the service on this store (test-config.yml says {@code store: {type: redis}}). */
    public abstract List<ConfigOverride> overrides();

    /** The store selected by {@value #PROPERTY}, {@link #REDIS} when it is not set. */
    public static TestStores selected() {
        String name = System.getProperty(PROPERTY, REDIS.type()).trim();
        return Arrays.stream(values()).filter(s -> s.type().equalsIgnoreCase(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("-D" + PROPERTY + "=" + name + " names no test store;"
                        + " choose from " + Arrays.stream(values()).map(TestStores::type)
                        .collect(Collectors.joining(", "))));
    }
}
