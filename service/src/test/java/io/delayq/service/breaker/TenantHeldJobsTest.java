package io.delayq.service.breaker;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.breaker.Origins;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Circuits;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue "many teams": two tenants' jobs held for one callback origin (a receiver both call, down): each tenant's
 * tokens see the origin's shared state with {@code heldJobs} counting its own held jobs only, never the other's; an
 * operator viewing a tenant sees that tenant's count, and an operator's own token every tenant's jobs together. Runs
 * on both stores.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class TenantHeldJobsTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = new DropwizardAppExtension<>(
            DelayqApplication.class, ResourceHelpers.resourceFilePath("tenants-test-config.yml"),
            TestApps.overrides(ConfigOverride.config("delivery.breaker.enabled", "true")));
    private static final int ALPHA_JOBS = 2;
    private static final int BETA_JOBS = 3;

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @Test
    void eachTenantSeesItsOwnHeldJobsOnASharedOriginAndNeverTheOthers() {
        Api api = TestApps.api(APP);
        Api operator = api.as(TestApps.ADMIN);
        String alphaTopic = "alpha.held-" + run;
        String betaTopic = "beta.held-" + run;
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            receiver.stop(); // down: every attempt fails, the circuit opens at the first, and the jobs are held
            String origin = Origins.of(receiver.url("/"));
            shares(api.as("alpha-admin-token"), alphaTopic, receiver.url("/" + alphaTopic));
            shares(api.as("beta-admin-token"), betaTopic, receiver.url("/" + betaTopic));
            enqueue(api.as("alpha-producer-token"), alphaTopic, ALPHA_JOBS);
            enqueue(api.as("beta-producer-token"), betaTopic, BETA_JOBS);

            // the probe is minutes away: every job is held until then, and the counts stay put while the test reads
            Await.until("every job of both tenants is held on the open circuit", Duration.ofSeconds(30), () -> {
                JsonNode c = Circuits.of(operator, origin);
                return c != null && "OPEN".equals(c.path("state").asText())
                        && c.path("heldJobs").asLong() == ALPHA_JOBS + BETA_JOBS;
            });

            for (String token : new String[]{"alpha-viewer-token", "alpha-admin-token"}) {
                JsonNode seen = Circuits.of(api.as(token), origin);
                assertThat(seen).as("%s lists the origin its topic calls", token).isNotNull();
                assertThat(seen.path("state").asText()).as("the one shared state: %s", seen).isEqualTo("OPEN");
                assertThat(seen.path("heldJobs").asLong()).as("%s: alpha's own jobs only: %s", token, seen)
                        .isEqualTo(ALPHA_JOBS);
            }
            for (String token : new String[]{"beta-viewer-token", "beta-admin-token"}) {
                JsonNode seen = Circuits.of(api.as(token), origin);
                assertThat(seen).as("%s lists the origin its topic calls", token).isNotNull();
                assertThat(seen.path("heldJobs").asLong()).as("%s: beta's own jobs only: %s", token, seen)
                        .isEqualTo(BETA_JOBS);
            }
            assertThat(Circuits.viewing(operator, "alpha", origin).path("heldJobs").asLong())
                    .as("an operator viewing alpha sees what alpha sees").isEqualTo(ALPHA_JOBS);
            assertThat(Circuits.viewing(operator, "beta", origin).path("heldJobs").asLong()).isEqualTo(BETA_JOBS);
            assertThat(Circuits.of(api.as("viewer-token"), origin).path("heldJobs").asLong())
                    .as("an operators' viewer: every tenant's jobs").isEqualTo(ALPHA_JOBS + BETA_JOBS);
        }
    }

    /** The tenant's topic calls the shared receiver, with a breaker that opens at once and probes minutes later. */
    private static void shares(Api tenantAdmin, String topic, String url) {
        Answer put = tenantAdmin.put("/v1/topics/" + topic, """
                {"callback": {"url": "%s"}, "maxAttempts": 10, "backoff": {"type": "schedule", "delays": ["200ms"]},
                 "breaker": {"enabled": true, "failureThreshold": 1, "probeInterval": "5m",
                             "maxProbeInterval": "5m"}}""".formatted(url));
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
    }

    private static void enqueue(Api producer, String topic, int jobs) {
        for (int i = 0; i < jobs; i++) {
            Answer created = producer.post("/v1/topics/" + topic + "/jobs", "{\"id\": \"j" + i + "\", \"payload\": {}}");
            assertThat(created.status()).as(created.toString()).isEqualTo(201);
        }
    }
}
