package io.delayq.service.health;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin port reports the store, the archive, its archiver and the delivery engine healthy, and exposes metrics;
 * the application port answers a load balancer's {@code /health-check} by the critical checks.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class HealthCheckTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    @Test
    void storeAndEngineAreHealthy() throws InterruptedException {
        Api admin = new Api("http://127.0.0.1:" + APP.getAdminPort(), null);
        Answer health = admin.get("/healthcheck");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (health.status() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(200);  // the engine reports healthy once its first sweep has run
            health = admin.get("/healthcheck");
        }
        assertThat(health.status()).as(health.toString()).isEqualTo(200);
        assertThat(health.json().path("store").path("healthy").asBoolean()).isTrue();
        assertThat(health.json().path("engine").path("healthy").asBoolean()).isTrue();
        assertThat(health.json().path("archive").path("healthy").asBoolean()).isTrue();
        assertThat(health.json().path("archiver").path("healthy").asBoolean()).isTrue();
        assertThat(health.json().path("archiver").path("message").asText()).startsWith("backlog");
    }

    /** What a load balancer probes: the health module's {@code /health-check} on the application port. */
    @Test
    void theApplicationPortAnswersTheLoadBalancerCheckWithTheCriticalChecks() {
        Api app = new Api("http://127.0.0.1:" + APP.getLocalPort(), null);
        Await.until("/health-check 200 once the engine's first sweep ran", 10_000,
                () -> app.get("/health-check").status() == 200);
        Answer check = app.get("/health-check?name=all");
        assertThat(check.status()).as(check.toString()).isEqualTo(200);
        assertThat(check.header("Cache-Control")).isEqualTo("no-store");
        java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> checks = new java.util.TreeMap<>();
        check.json().forEach(c -> checks.put(c.path("name").asText(), c));
        assertThat(checks).containsOnlyKeys("store", "engine", "archive", "archiver", "deadlocks");
        assertThat(checks.get("store").path("critical").asBoolean()).isTrue();
        assertThat(checks.get("engine").path("critical").asBoolean()).isTrue();
        assertThat(checks.get("archive").path("critical").asBoolean()).isFalse();
        assertThat(checks.get("archiver").path("critical").asBoolean()).isFalse();
        assertThat(checks.get("deadlocks").path("type").asText()).isEqualTo("ALIVE");
        assertThat(app.get("/health-check?type=alive").status()).as("liveness").isEqualTo(200);
        assertThat(app.get("/health-check").raw().body()).as("no details without ?name=").isEqualTo("[]");
    }

    @Test
    void metricsCountEnqueuedJobsAndTrackTopicDepth() {
        Api api = TestApps.api(APP);
        String topic = TestApps.topic();
        api.post("/v1/topics/" + topic + "/jobs", "{\"delayMs\":60000,\"payload\":{}}");

        Answer metrics = new Api("http://127.0.0.1:" + APP.getAdminPort(), null).get("/metrics");
        assertThat(metrics.json().path("meters").path("delayq.jobs.enqueued").path("count").asLong()).isPositive();
        assertThat(metrics.json().path("gauges").path("delayq.topics." + topic + ".scheduled").path("value").asLong())
                .isEqualTo(1);
    }
}
