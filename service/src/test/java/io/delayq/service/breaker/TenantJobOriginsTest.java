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
 * Issue "many teams": a tenant sees the circuit of an origin that only its jobs' own callback URLs use (not its
 * topics' settings, and no job of it dead), because the engine records which origins each topic's jobs were sent to
 * ({@code CircuitBreakers.recordOrigins}). Alpha's jobs, each with its own callback to a receiver that is down, are
 * held on the origin's open circuit: alpha's tokens (and an operator viewing alpha) list that circuit with alpha's
 * held count; beta's do not list it at all. Runs on both stores.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class TenantJobOriginsTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = new DropwizardAppExtension<>(
            DelayqApplication.class, ResourceHelpers.resourceFilePath("tenants-test-config.yml"),
            TestApps.overrides());
    private static final int JOBS = 2;

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aTenantSeesTheCircuitOfAnOriginOnlyItsJobsOwnCallbacksUseAndAnotherTenantDoesNot() {
        Api api = TestApps.api(APP);
        Api operator = api.as(TestApps.ADMIN);
        String topic = "alpha.own-callbacks-" + run;
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            receiver.stop(); // down: the first attempt fails, the circuit opens, and the jobs are held
            String origin = Origins.of(receiver.url("/"));
            // no callback in the settings: the only trace of the origin is in the jobs themselves
            Answer put = api.as("alpha-admin-token").put("/v1/topics/" + topic, """
                    {"maxAttempts": 10, "backoff": {"type": "schedule", "delays": ["200ms"]},
                     "breaker": {"enabled": true, "failureThreshold": 1, "probeInterval": "5m",
                                 "maxProbeInterval": "5m"}}""");
            assertThat(put.status()).as(put.toString()).isEqualTo(200);
            for (int i = 0; i < JOBS; i++) {
                Answer created = api.as("alpha-producer-token").post("/v1/topics/" + topic + "/jobs", """
                        {"id": "j%d", "payload": {}, "callback": {"url": "%s"}}"""
                        .formatted(i, receiver.url("/own/" + topic + "/" + i)));
                assertThat(created.status()).as(created.toString()).isEqualTo(201);
            }

            // the probe is minutes away: every job is held until then, and the counts stay put while the test reads
            Await.until("alpha's jobs are held on the open circuit", Duration.ofSeconds(30), () -> {
                JsonNode c = Circuits.of(operator, origin);
                return c != null && "OPEN".equals(c.path("state").asText()) && c.path("heldJobs").asLong() == JOBS;
            });
            // the engine writes the origins its jobs used within a second or so
            Await.until("alpha's viewer lists the circuit", Duration.ofSeconds(30),
                    () -> Circuits.of(api.as("alpha-viewer-token"), origin) != null);

            for (String token : new String[]{"alpha-viewer-token", "alpha-admin-token"}) {
                JsonNode seen = Circuits.of(api.as(token), origin);
                assertThat(seen).as("%s lists the origin its jobs call", token).isNotNull();
                assertThat(seen.path("state").asText()).as("the one shared state: %s", seen).isEqualTo("OPEN");
                assertThat(seen.path("heldJobs").asLong()).as("%s: alpha's held jobs: %s", token, seen)
                        .isEqualTo(JOBS);
            }
            JsonNode viewingAlpha = Circuits.viewing(operator, "alpha", origin);
            assertThat(viewingAlpha).as("an operator viewing alpha sees what alpha sees").isNotNull();
            assertThat(viewingAlpha.path("heldJobs").asLong()).isEqualTo(JOBS);
            for (String token : new String[]{"beta-viewer-token", "beta-admin-token"}) {
                assertThat(Circuits.of(api.as(token), origin)).as("%s: an origin only alpha's jobs use", token)
                        .isNull();
            }
            assertThat(Circuits.viewing(operator, "beta", origin)).as("an operator viewing beta").isNull();
        }
    }
}
