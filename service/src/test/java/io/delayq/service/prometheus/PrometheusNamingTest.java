package io.delayq.service.prometheus;

import io.delayq.core.testing.Await;
import io.delayq.redis.EmbeddedRedis;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every metric family {@code /metrics/prometheus} serves follows Prometheus's naming conventions ({@link NamingRules}),
 * scraped from a running service after traffic of every kind: deliveries, failed attempts, a dead job, a pull lease and
 * a parked one, an event-stream subscriber, an open circuit with held jobs.
 */
class PrometheusNamingTest {
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    static final CallbackReceiver DOWN = new CallbackReceiver();
    static EmbeddedRedis redis;
    static DropwizardTestSupport<DelayqConfiguration> app;
    static Traffic traffic;

    /**
     * A Redis of its own: the open circuit this test leaves (probes five minutes apart) would be reported by other
     * tests' health checks on the shared one. Not through TestApps, whose store override would compete with this one.
     */
    @BeforeAll
    static void trafficOfEveryKind() throws Exception {
        redis = EmbeddedRedis.start(0, null, false);
        app = new DropwizardTestSupport<>(DelayqApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
                ConfigOverride.config("store.uri", redis.uri()),
                ConfigOverride.config("delivery.breaker.enabled", "true"));
        app.before();
        traffic = new Traffic(RECEIVER, new Api("http://127.0.0.1:" + app.getLocalPort(), TestApps.PRODUCER));
        String topic = TestApps.topic();
        traffic.deliver(topic, 3);
        traffic.kill(topic, 1);
        traffic.scheduleLater(topic, 2, 600_000);
        traffic.lease(TestApps.topic(), 1);
        traffic.parkLeaseRequest(TestApps.topic());
        traffic.subscribe(topic);
        traffic.openCircuit(TestApps.topic(), DOWN, 3);
        // the scrape reads the circuits' snapshot, kept for up to 2 s
        Await.until("the open circuit in the scrape", 10_000,
                () -> Double.valueOf(1.0).equals(scrape().value("delayq_breaker_open_circuits", Map.of())));
    }

    @AfterAll
    static void stop() {
        if (traffic != null) {
            traffic.close();
        }
        try {
            if (app != null) {
                app.after();
            }
        } finally {
            RECEIVER.close();
            DOWN.close();
            if (redis != null) {
                redis.close();
            }
        }
    }

    @Test
    void everyFamilyFollowsTheNamingConventions() {
        Exposition scraped = scrape();
        assertThat(scraped.families()).as("the scrape").hasSizeGreaterThan(50);
        // the traffic reached every kind of series
        assertThat(scraped.families()).containsKeys("delayq_topic_dead_total", "delayq_delivery_failed_total",
                "delayq_breaker_holds_total", "delayq_breaker_circuits_opened_total", "delayq_api_async_requests_total",
                "delayq_api_method_seconds", "delayq_delivery_lateness_seconds", "jvm_gc_collection_seconds");
        assertThat(scraped.value("delayq_breaker_open_circuits", Map.of())).isEqualTo(1.0);
        assertThat(scraped.value("delayq_consumer_parked_lease_requests", Map.of())).isGreaterThanOrEqualTo(1.0);
        assertThat(scraped.value("delayq_consumer_sse_subscribers", Map.of())).isGreaterThanOrEqualTo(1.0);
        // the breaker's "held now" and "held so far" are told apart by name
        assertThat(scraped.type("delayq_breaker_held_jobs")).isEqualTo("gauge");
        assertThat(scraped.families()).doesNotContainKeys("delayq_breaker_jobs_held_total",
                "delayq_breaker_held_jobs_total");
        assertThat(NamingRules.violations(scraped)).as("families breaking Prometheus's naming conventions").isEmpty();
    }

    private static Exposition scrape() {
        Answer answer = new Api("http://127.0.0.1:" + app.getAdminPort(), null).get(PrometheusExposition.PATH);
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        return Exposition.parseText(answer.raw().body());
    }
}
