package io.delayq.service.tenants;

import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The service as {@link TestApps} runs it, on tenancy-test-config.yml: test-config.yml plus tenant {@code cfgteam}
 * ({@code cfgteam.*}) and its tokens {@code cfgteam-admin-token} (producer, admin) and {@code cfgteam-producer-token}.
 */
final class TenancyApps {
    static final String CFG_ADMIN = "cfgteam-admin-token";
    static final String CFG_PRODUCER = "cfgteam-producer-token";

    private TenancyApps() {
    }

    static DropwizardAppExtension<DelayqConfiguration> app(ConfigOverride... overrides) {
        return new DropwizardAppExtension<>(DelayqApplication.class, config(), TestApps.overrides(overrides));
    }

    static DropwizardTestSupport<DelayqConfiguration> support(ConfigOverride... overrides) {
        return new DropwizardTestSupport<>(DelayqApplication.class, config(), TestApps.overrides(overrides));
    }

    /** A tenant name no other test (nor an earlier run on the same store) uses: its patterns never overlap theirs. */
    static String tenantName() {
        return "t" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    private static String config() {
        return ResourceHelpers.resourceFilePath("tenancy-test-config.yml");
    }
}
