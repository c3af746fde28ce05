package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/** Pull consumers against the whole service (delivery engine and limits as configured), not the consumer module alone. */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class PullConsumerTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP =
            TestApps.app(ConfigOverride.config("delivery.sweepInterval", "1 minute"));

    /**
     * A consumer that leases a job and never answers (it crashed) gets the job redelivered when its lease ends,
     * although the delivery engine's safety sweep is a minute away: the lease itself armed the engine's expiry timer.
     */
    @Test
    void anAbandonedLeaseComesBackWhenItEndsNotAtTheNextSweep() {
        Api api = TestApps.api(APP).as(TestApps.ADMIN);
        String topic = TestApps.topic();
        assertThat(api.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"p1\",\"payload\":{\"n\":1}}").status())
                .isEqualTo(201);

        Api.Answer first = api.post("/v1/topics/" + topic + "/leases", "{\"max\":1,\"waitMs\":5000,\"leaseMs\":800}");
        assertThat(first.status()).isEqualTo(200);
        JsonNode lease = first.json().path("leases").get(0);
        assertThat(lease.path("attempt").asInt()).isEqualTo(1);
        long leasedAt = System.currentTimeMillis();

        // the consumer is gone; a second consumer waits for work
        Api.Answer second = api.post("/v1/topics/" + topic + "/leases", "{\"max\":1,\"waitMs\":20000}");
        long waited = System.currentTimeMillis() - leasedAt;

        assertThat(second.status()).isEqualTo(200);
        assertThat(second.json().path("leases")).as(second.toString()).hasSize(1);
        assertThat(second.json().path("leases").get(0).path("attempt").asInt()).isEqualTo(2);
        assertThat(waited).as("back when the 800 ms lease ended, well before the 1 minute sweep").isLessThan(15_000);
        Api.Answer stale = api.post("/v1/topics/" + topic + "/jobs/p1/ack",
                "{\"leaseToken\":\"" + lease.path("leaseToken").asText() + "\"}");
        assertThat(stale.status()).as("the first consumer's token is stale").isEqualTo(409);
    }

    @Test
    void aNackCannotPutAJobBackFurtherThanTheConfiguredMaxDelay() {
        Api api = TestApps.api(APP).as(TestApps.ADMIN);
        String topic = TestApps.topic();
        api.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"n1\",\"payload\":{}}");
        JsonNode lease = api.post("/v1/topics/" + topic + "/leases", "{\"max\":1,\"waitMs\":5000}")
                .json().path("leases").get(0);
        String token = lease.path("leaseToken").asText();
        long thirtyOneDays = 31L * 24 * 3600 * 1000; // test-config.yml: limits.maxDelay 30d

        Api.Answer refused = api.post("/v1/topics/" + topic + "/jobs/n1/nack",
                "{\"leaseToken\":\"" + token + "\",\"delayMs\":" + thirtyOneDays + "}");

        assertThat(refused.status()).isEqualTo(422);
        assertThat(refused.detail()).contains("limits.maxDelay");
        assertThat(api.get("/v1/topics/" + topic + "/jobs/n1").json().path("state").asText())
                .as("nothing changed").isEqualTo("LEASED");
        assertThat(api.post("/v1/topics/" + topic + "/jobs/n1/nack",
                "{\"leaseToken\":\"" + token + "\",\"delayMs\":60000}").status()).isEqualTo(204);
    }
}
