package io.delayq.service.config;

import io.delayq.redis.testing.TestRedis;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How the service starts from its configuration: an environment variable without a default that is not set fails the
 * start naming it (it used to stay as literal text, e.g. a signing secret {@code ${SECRET}}); the shipped config.yml's
 * development defaults ({@code dev-token} with every role, {@code dev-viewer}, {@code dev-secret}) start the service
 * on 127.0.0.1, as the README's one command does, and refuse to start it on any other address.
 */
class StrictStartTest {
    private static final String UNSET = "DELAYQ_TEST_VARIABLE_NOBODY_SETS";

    private static Path rootConfig() {
        Path fromModule = Path.of("..", "config.yml");
        return Files.exists(fromModule) ? fromModule : Path.of("config.yml");
    }

    /**
     * The README's command on the shipped config.yml, with no environment, as it runs: its embedded Redis and
     * archive, only moved to free ports and a temporary directory.
     */
    private static DropwizardTestSupport<DelayqConfiguration> shipped(Path data, ConfigOverride... more) {
        ConfigOverride[] base = {
                ConfigOverride.config("server.applicationConnectors[0].port", "0"),
                ConfigOverride.config("server.adminConnectors[0].port", "0"),
                ConfigOverride.config("store.embedded.port", "0"),
                ConfigOverride.config("store.embedded.dataDir", data.resolve("redis").toString()),
                ConfigOverride.config("archive.embedded.port", "0"),
                ConfigOverride.config("archive.embedded.persistent", "false"),
                ConfigOverride.config("archive.embedded.dataDir", data.resolve("mongo").toString())};
        ConfigOverride[] all = new ConfigOverride[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return new DropwizardTestSupport<>(DelayqApplication.class, rootConfig().toAbsolutePath().toString(), all);
    }

    @Test
    void theShippedConfigurationStartsOnLoopbackWithTheDevelopmentDefaults(@TempDir Path data) throws Exception {
        DropwizardTestSupport<DelayqConfiguration> service = shipped(data);
        service.before();
        try {
            String token = System.getenv().getOrDefault("DELAYQ_TOKEN", "dev-token");
            Api api = new Api("http://127.0.0.1:" + service.getLocalPort(), token);
            assertThat(api.get("/v1/me").status()).isEqualTo(200);
        } finally {
            service.after();
        }
    }

    @Test
    void theDevelopmentDefaultsAreRefusedOnAnyOtherAddress(@TempDir Path data) {
        for (String connector : new String[] {"applicationConnectors", "adminConnectors"}) {
            DropwizardTestSupport<DelayqConfiguration> service = shipped(data,
                    ConfigOverride.config("server." + connector + "[0].bindHost", "0.0.0.0"));
            try {
                assertThatThrownBy(service::before).as(connector)
                        .hasStackTraceContaining("0.0.0.0")
                        .hasStackTraceContaining("DELAYQ_TOKEN")
                        .hasStackTraceContaining("DELAYQ_SIGNING_SECRET")
                        .hasStackTraceContaining("loopback");
            } finally {
                service.after();
            }
        }
    }

    @Test
    void tokensAndASecretOfOnesOwnListenOnAnyAddress() throws Exception {
        DropwizardTestSupport<DelayqConfiguration> service = new DropwizardTestSupport<>(DelayqApplication.class,
                ResourceHelpers.resourceFilePath("test-config.yml"),
                ConfigOverride.config("store.uri", TestRedis::sharedUri),
                ConfigOverride.config("server.applicationConnectors[0].bindHost", "0.0.0.0"));
        service.before();
        try {
            assertThat(new Api("http://127.0.0.1:" + service.getLocalPort(), "admin-token").get("/v1/me").status())
                    .isEqualTo(200);
        } finally {
            service.after();
        }
    }

    @Test
    void anUnsetVariableWithoutADefaultFailsTheStartNamingIt(@TempDir Path dir) throws Exception {
        String config = Files.readString(Path.of(ResourceHelpers.resourceFilePath("test-config.yml")))
                .replace("signingSecret: test-secret", "signingSecret: ${" + UNSET + "}");
        assertThat(config).contains(UNSET);
        Path file = dir.resolve("unset.yml");
        Files.writeString(file, config);
        DropwizardTestSupport<DelayqConfiguration> service = new DropwizardTestSupport<>(DelayqApplication.class,
                file.toString(), ConfigOverride.config("store.uri", TestRedis::sharedUri));
        try {
            assertThatThrownBy(service::before).hasStackTraceContaining(UNSET);
        } finally {
            service.after();
        }
    }
}
