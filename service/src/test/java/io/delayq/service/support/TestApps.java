package io.delayq.service.support;

import io.delayq.core.testing.StoreFixtures;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;

import java.util.Arrays;
import java.util.stream.Stream;

/**
 * The service as the end-to-end tests run it: test-config.yml, random ports, an in-memory archive, and the job store
 * picked by one switch, the system property {@value TestStores#PROPERTY}:
 *
 * <ul>
 *   <li>{@code redis} (the default): the shared test Redis ({@link TestRedis#sharedUri()}, or {@code REDIS_URL});</li>
 *   <li>{@code postgres}: the shared test PostgreSQL of storage-postgres's test-jar ({@link TestStores}).</li>
 * </ul>
 *
 * Every test that starts the service goes through {@link #app} or {@link #support}, so the same test classes run on
 * either store (service/pom.xml runs the store-neutral ones a second time with {@code -Ddelayq.test.store=postgres}).
 */
public final class TestApps {
    public static final String PRODUCER = "producer-token";
    public static final String CONSUMER = "consumer-token";
    public static final String ADMIN = "admin-token";

    private TestApps() {
    }

    /** The service, started and stopped around a test class by {@code DropwizardExtensionsSupport}. */
    public static DropwizardAppExtension<DelayqConfiguration> app(ConfigOverride... overrides) {
        return new DropwizardAppExtension<>(DelayqApplication.class, config(), overrides(overrides));
    }

    /** The service, started and stopped by the test itself ({@code before()}, {@code after()}), e.g. twice in a test. */
    public static DropwizardTestSupport<DelayqConfiguration> support(ConfigOverride... overrides) {
        return new DropwizardTestSupport<>(DelayqApplication.class, config(), overrides(overrides));
    }

    /** The selected store's overrides, then {@code overrides} (which win where they name the same field). */
    public static ConfigOverride[] overrides(ConfigOverride... overrides) {
        return Stream.concat(TestStores.selected().overrides().stream(), Arrays.stream(overrides))
                .toArray(ConfigOverride[]::new);
    }

    public static Api api(DropwizardAppExtension<DelayqConfiguration> app) {
        return new Api("http://127.0.0.1:" + app.getLocalPort(), PRODUCER);
    }

    public static String topic() {
        return StoreFixtures.newTopic();
    }

    private static String config() {
        return ResourceHelpers.resourceFilePath("test-config.yml");
    }
}
