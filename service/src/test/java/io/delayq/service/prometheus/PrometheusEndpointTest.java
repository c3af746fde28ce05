package io.delayq.service.prometheus;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * /metrics/prometheus on the admin port of the running service, after jobs were scheduled and delivered: both
 * formats parse strictly, the per-topic, histogram and bridged series are there, and every series the Grafana
 * dashboard (docs/grafana/delayq.json) queries exists.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PrometheusEndpointTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    static final String TOPIC = TestApps.topic();

    @BeforeAll
    static void deliverTwoJobs() {
        Api api = TestApps.api(APP);
        for (String id : List.of("p1", "p2")) {
            Answer created = api.post("/v1/topics/" + TOPIC + "/jobs", """
                    {"id": "%s", "delayMs": 50, "payload": {}, "callback": {"url": "%s"}}"""
                    .formatted(id, RECEIVER.url("/ok/" + TOPIC)));
            assertThat(created.status()).as(created.toString()).isEqualTo(201);
        }
        assertThat(RECEIVER.await(r -> r.path().equals("/ok/" + TOPIC), 2, Duration.ofSeconds(15))).hasSize(2);
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    private static Answer scrape(String accept) {
        Api admin = new Api("http://127.0.0.1:" + APP.getAdminPort(), null);
        HttpRequest.Builder request = HttpRequest.newBuilder(
                java.net.URI.create(admin.base() + PrometheusExposition.PATH)).GET();
        if (accept != null) {
            request.header("Accept", accept);
        }
        return admin.send(request);
    }

    /** The delivered counter is bumped after the callback answers: poll until the scrape has caught up. */
    private static Exposition scrapeAfterDeliveries() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            Answer answer = scrape(null);
            assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
            Exposition text = Exposition.parseText(answer.raw().body());
            Double delivered = text.value("delayq_topic_delivered_total", Map.of("topic", TOPIC));
            if (delivered != null && delivered >= 2 || System.nanoTime() > deadline) {
                return text;
            }
            Thread.sleep(100);
        }
    }

    @Test
    void servesTheTextFormatWithPerTopicHistogramAndBridgedSeries() throws InterruptedException {
        assertThat(scrape(null).contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
        Exposition text = scrapeAfterDeliveries();
        Map<String, String> topic = Map.of("topic", TOPIC);

        assertThat(text.value("delayq_topic_enqueued_total", topic)).isEqualTo(2.0);
        assertThat(text.value("delayq_topic_delivered_total", topic)).isEqualTo(2.0);
        assertThat(text.value("delayq_topic_scheduled", topic)).as("the depth gauge of the topic").isNotNull();
        assertThat(text.value("delayq_topic_leased", topic)).isNotNull();
        assertThat(text.type("delayq_delivery_lateness_seconds")).isEqualTo("histogram");
        assertThat(text.value("delayq_delivery_lateness_seconds_count", Map.of())).isGreaterThanOrEqualTo(2.0);
        assertThat(text.type("delayq_delivery_callback_latency_seconds")).isEqualTo("histogram");
        assertThat(text.value("delayq_delivery_callback_latency_seconds_count", Map.of()))
                .as("every callback timed by the engine's timer").isGreaterThanOrEqualTo(2.0);
        assertThat(text.value("delayq_delivery_callback_latency_seconds_bucket", Map.of("le", "600.0")))
                .isGreaterThanOrEqualTo(2.0);
        // bridged from Dropwizard, named by Prometheus's conventions (snake_case, _total, _seconds)
        assertThat(text.sampleNames()).contains("delayq_archive_backlog", "delayq_consumer_parked_lease_requests",
                "delayq_consumer_lease_topics_tracked", "delayq_delivery_in_flight", "delayq_delivery_delivered_total",
                "delayq_jobs_enqueued_total", "delayq_store_up", "delayq_archive_up");
        assertThat(text.value("delayq_api_method_seconds_count",
                Map.of("resource", "JobsResource", "method", "schedule"))).as("a Jersey timer, labelled")
                .isGreaterThanOrEqualTo(2.0);
        // the JVM by the client's instrumentation
        assertThat(text.samples("jvm_memory_used_bytes")).anyMatch(s -> "heap".equals(s.label("area")));
        // no Dropwizard copy of what a native series has: the millisecond lateness, the latency summary
        assertThat(text.families()).doesNotContainKeys("delayq_delivery_lateness", "delayq_delivery_callback_latency",
                "delayq_delivery_callback_latency_seconds_summary");
        // on whichever store the tests run (PrometheusNamingTest covers every kind of traffic, on Redis)
        assertThat(NamingRules.violations(text)).as("families breaking the naming conventions").isEmpty();
        // topics are a label, never part of a name: the per-topic Dropwizard metrics are not bridged
        assertThat(text.sampleNames()).noneMatch(name -> name.contains(TOPIC.replaceAll("[^a-zA-Z0-9_]", "_")));
    }

    @Test
    void servesOpenMetricsWhenAskedFor() throws InterruptedException {
        scrapeAfterDeliveries();
        Answer answer = scrape("application/openmetrics-text; version=1.0.0; charset=utf-8");
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.contentType()).startsWith("application/openmetrics-text; version=1.0.0");
        Exposition om = Exposition.parseOpenMetrics(answer.raw().body());
        assertThat(om.type("delayq_topic_delivered")).as("OpenMetrics names the counter family without _total")
                .isEqualTo("counter");
        assertThat(om.value("delayq_topic_delivered_total", Map.of("topic", TOPIC))).isEqualTo(2.0);
        assertThat(om.type("delayq_delivery_lateness_seconds")).isEqualTo("histogram");
    }

    @Test
    void everySeriesTheGrafanaDashboardQueriesExists() throws Exception {
        Path dashboard = Path.of("..", "docs", "grafana", "delayq.json");
        assertThat(dashboard).exists();
        List<String> expressions = DashboardQueries.expressions(dashboard);
        Set<String> queried = new TreeSet<>();
        expressions.forEach(expr -> queried.addAll(DashboardQueries.metricNames(expr)));
        assertThat(expressions).hasSizeGreaterThanOrEqualTo(10);
        assertThat(queried).as("the dashboard's series").contains("delayq_topic_delivered_total",
                "delayq_delivery_lateness_seconds_bucket", "delayq_archive_backlog", "jvm_memory_used_bytes");

        Set<String> served = scrapeAfterDeliveries().sampleNames();
        assertThat(served).as("series served at /metrics/prometheus").containsAll(queried);
        // the panels that read per-topic series find the topic just used
        Exposition text = scrapeAfterDeliveries();
        for (String perTopic : queried) {
            if (perTopic.startsWith("delayq_topic_")) {
                assertThat(text.samples(perTopic)).as(perTopic).anyMatch(s -> TOPIC.equals(s.label("topic")));
            }
        }
        assertThat(Files.readString(dashboard)).contains("\"type\": \"datasource\"", "\"query\": \"prometheus\"");
    }
}
