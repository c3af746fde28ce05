package io.delayq.service.support;

import io.delayq.core.testing.StoreFixtures;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.testing.ServiceProcess;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
    /**
     * Stops instances started with {@link #support} in the reverse order of their starts. The order matters: each
     * start sets the overrides as {@code dw.*} system properties remembering the value it found (the previous
     * instance's), and each stop puts that value back, so stopping the first-started first leaves the later one's
     * remembered values set for every test after it in this JVM (seen: a stray {@code dw.store.uri} broke the next
     * classes that read a configuration in process).
     */
    public static void stopAll(List<? extends DropwizardTestSupport<?>> instances) {
        for (int i = instances.size() - 1; i >= 0; i--) {
            instances.get(i).after();
        }
    }

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

    /**
     * The service in a JVM of its own (testing's {@link ServiceProcess}), from the test's classpath with test-config.yml,
     * the selected store and {@code overrides}, its configuration and log in {@code dir}; not started yet. A test can
     * {@code kill -9} it and start it again on the same ports.
     */
    public static ServiceProcess process(Path dir, ConfigOverride... overrides) throws IOException {
        return process(dir, "", overrides);
    }

    /** As {@link #process(Path, ConfigOverride...)}, with more top-level blocks after test-config.yml's (e.g. {@code tenants:}). */
    public static ServiceProcess process(Path dir, String extraYaml, ConfigOverride... overrides) throws IOException {
        return ServiceProcess.mainClass(DelayqApplication.class.getName(), ServiceProcess.testClasspath())
                .directory(dir).config(Path.of(config())).extraYaml(extraYaml)
                .overrides(systemProperties(overrides(overrides))).build();
    }

    /**
     * What Dropwizard would read from {@code ConfigOverride}s in this JVM, as paths and values for the child's
     * {@code dw.*} properties. Other {@code dw.*} properties of this JVM (another test's, left set) are put aside
     * meanwhile, so that an override whose value one of them happens to have is passed on all the same.
     */
    private static Map<String, String> systemProperties(ConfigOverride[] overrides) {
        Map<String, String> aside = new TreeMap<>();
        System.getProperties().forEach((k, v) -> {
            if (k.toString().startsWith("dw.")) {
                aside.put(k.toString(), v.toString());
            }
        });
        aside.keySet().forEach(System::clearProperty);
        Map<String, String> added = new TreeMap<>();
        try {
            for (ConfigOverride o : overrides) {
                o.addToSystemProperties();
            }
            System.getProperties().forEach((k, v) -> {
                if (k.toString().startsWith("dw.")) {
                    added.put(k.toString().substring("dw.".length()), v.toString());
                }
            });
        } finally {
            for (ConfigOverride o : overrides) {
                o.removeFromSystemProperties();
            }
            aside.forEach(System::setProperty);
        }
        return added;
    }
}
