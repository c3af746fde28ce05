package io.delayq.service.support;

import io.delayq.redis.EmbeddedRedis;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;

import java.util.Arrays;
import java.util.UUID;
import java.util.stream.Stream;

/** The service as the end-to-end tests run it: test-config.yml, random ports, the shared test Redis. */
public final class TestApps {
    public static final String PRODUCER = "producer-token";
    public static final String CONSUMER = "consumer-token";
    public static final String ADMIN = "admin-token";

    private TestApps() {
    }

    public static DropwizardAppExtension<DelayqConfiguration> app(ConfigOverride... overrides) {
        ConfigOverride[] all = Stream.concat(
                Stream.of(ConfigOverride.config("store.uri", EmbeddedRedis::sharedTestUri)),
                Arrays.stream(overrides)).toArray(ConfigOverride[]::new);
        return new DropwizardAppExtension<>(DelayqApplication.class,
                ResourceHelpers.resourceFilePath("test-config.yml"), all);
    }

    public static Api api(DropwizardAppExtension<DelayqConfiguration> app) {
        return new Api("http://127.0.0.1:" + app.getLocalPort(), PRODUCER);
    }

    public static String topic() {
        return "t-" + UUID.randomUUID();
    }
}
