package io.delayq.client;

import io.delayq.redis.testing.TestRedis;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;

import java.time.Duration;
import java.util.UUID;

/** The real service for client tests: client-test-config.yml, random ports, the shared test Redis. */
final class TestService {
    static final String TOKEN = "client-test-token";
    static final String PRODUCER_ONLY = "producer-only-token";

    private TestService() {
    }

    static DropwizardAppExtension<DelayqConfiguration> app() {
        return new DropwizardAppExtension<>(DelayqApplication.class,
                ResourceHelpers.resourceFilePath("client-test-config.yml"),
                ConfigOverride.config("store.uri", TestRedis::sharedUri));
    }

    static DelayqClient client(DropwizardAppExtension<DelayqConfiguration> app) {
        return client(app, TOKEN);
    }

    static DelayqClient client(DropwizardAppExtension<DelayqConfiguration> app, String token) {
        return DelayqClient.builder()
                .baseUri("http://127.0.0.1:" + app.getLocalPort())
                .token(token)
                .requestTimeout(Duration.ofSeconds(10))
                .build();
    }

    static String topic() {
        return "t-" + UUID.randomUUID();
    }
}
