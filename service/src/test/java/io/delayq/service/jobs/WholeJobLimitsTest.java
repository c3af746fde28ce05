package io.delayq.service.jobs;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code limits.maxJobBytes} bounds a job as a whole (payload, id, callback and backoff together), so that parts
 * each within their own limit cannot add up to a record the store and the archive choke on.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class WholeJobLimitsTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("limits.maxJobBytes", "4KiB"),
            ConfigOverride.config("limits.maxCallbackHeaders", "4"),
            ConfigOverride.config("limits.maxCallbackHeaderBytes", "3KiB"));

    @Test
    void aJobOverMaxJobBytesIsRefusedThoughEachPartIsWithinItsLimit() {
        String topic = TestApps.topic();
        Api api = TestApps.api(APP);
        String payload = "\"" + "p".repeat(1000) + "\"";
        String headers = "{\"X-A\":\"" + "a".repeat(1000) + "\",\"X-B\":\"" + "b".repeat(1000) + "\"}";
        String callback = "{\"url\":\"http://127.0.0.1:9/" + "u".repeat(1500) + "\",\"headers\":" + headers + "}";

        Answer refused = api.post("/v1/topics/" + topic + "/jobs",
                "{\"id\":\"big\",\"payload\":" + payload + ",\"callback\":" + callback + "}");
        assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.detail()).contains("limits.maxJobBytes", "4096");
        assertThat(api.get("/v1/topics/" + topic + "/jobs/big").status()).isEqualTo(404);

        Answer smaller = api.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"fits\",\"payload\":" + payload
                + ",\"callback\":{\"url\":\"http://127.0.0.1:9/\",\"headers\":" + headers + "}}");
        assertThat(smaller.status()).as(smaller.toString()).isEqualTo(201);
    }

    @Test
    void headerLimitsAreConfigurable() {
        Api api = TestApps.api(APP);
        String topic = TestApps.topic();
        Answer many = api.post("/v1/topics/" + topic + "/jobs", "{\"payload\":1,\"callback\":{\"url\":"
                + "\"http://127.0.0.1:9/\",\"headers\":{\"A\":\"1\",\"B\":\"2\",\"C\":\"3\",\"D\":\"4\",\"E\":\"5\"}}}");
        assertThat(many.status()).as(many.toString()).isEqualTo(422);
        assertThat(many.detail()).contains("callback.headers has 5", "at most 4", "limits.maxCallbackHeaders");
        Answer big = api.post("/v1/topics/" + topic + "/jobs", "{\"payload\":1,\"callback\":{\"url\":"
                + "\"http://127.0.0.1:9/\",\"headers\":{\"A\":\"" + "x".repeat(3100) + "\"}}}");
        assertThat(big.status()).as(big.toString()).isEqualTo(422);
        assertThat(big.detail()).contains("limits.maxCallbackHeaderBytes", "3072");
        assertThat(api.get("/v1/topics/" + topic).json().path("scheduled").asLong()).isZero();
    }
}
