package io.delayq.service.prometheus;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.dropwizard.testing.ConfigOverride;
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
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * /metrics/prometheus on the admin port of the running service, after jobs were scheduled and delivered: both
 * formats parse strictly, the per-topic, histogram and bridged series are there, and every series the Grafana
 * dashboard (docs/grafana/delayq.json) queries exists.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PrometheusEndpointTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("prometheus.tenantUseInterval", "1s"));
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    static final String TOPIC = TestApps.topic();
    /** A tenant with one pending job in one of its two topics and a schedule in the other, at its quota of 2. */
    static final String TENANT = "prom-" + UUID.randomUUID().toString().substring(0, 8);

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
        tenantAtItsQuota(api.as(TestApps.ADMIN));
    }

    /** TENANT: a job and a schedule (a schedule counts as a job) at maxPendingJobs 2, and one job refused. */
    private static void tenantAtItsQuota(Api operator) {
        Answer tenant = operator.put("/v1/admin/tenants/" + TENANT, "{\"topics\":[\"" + TENANT + ".*\"],"
                + "\"quotas\":{\"maxPendingJobs\":2,\"maxTopics\":5}}");
        assertThat(tenant.status()).as(tenant.toString()).isEqualTo(201);
        assertThat(operator.post("/v1/topics/" + TENANT + ".a/jobs", "{\"id\":\"j\",\"delayMs\":3600000,"
                + "\"payload\":{}}").status()).isEqualTo(201);
        Answer schedule = operator.put("/v1/topics/" + TENANT + ".b/schedules/nightly", "{\"cron\":\"0 0 2 * * *\","
                + "\"timeZone\":\"UTC\",\"job\":{\"payload\":{}}}");
        assertThat(schedule.status()).as(schedule.toString()).isEqualTo(201);
        Answer refused = operator.post("/v1/topics/" + TENANT + ".a/jobs", "{\"id\":\"k\",\"payload\":{}}");
        assertThat(refused.status()).as(refused.toString()).isEqualTo(429);
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
        // the test store is shared with other classes: leave no tenant behind
        Api operator = TestApps.api(APP).as(TestApps.ADMIN);
        operator.delete("/v1/topics/" + TENANT + ".a/jobs/j");
        operator.delete("/v1/topics/" + TENANT + ".b/schedules/nightly");
        operator.delete("/v1/admin/tenants/" + TENANT);
    }

    /**
     * The tenant's use and limits, store-wide, read on a timer (every second here): its pending jobs count the
     * schedule, its topics the one with the schedule only, and the refusal is counted by quota.
     */
    @Test
    void servesEachTenantsQuotaUseAndRefusals() throws InterruptedException {
        Map<String, String> tenant = Map.of("tenant", TENANT);
        Exposition text = awaitTenantUse();
        assertThat(text.value("delayq_tenant_pending_jobs", tenant)).isEqualTo(2.0);
        assertThat(text.value("delayq_tenant_pending_jobs_limit", tenant)).isEqualTo(2.0);
        assertThat(text.value("delayq_tenant_topics", tenant)).isEqualTo(2.0);
        assertThat(text.value("delayq_tenant_topics_limit", tenant)).isEqualTo(5.0);
        assertThat(text.value("delayq_tenant_quota_exceeded_total", Map.of("tenant", TENANT, "quota",
                "maxPendingJobs"))).isEqualTo(1.0);
        assertThat(text.type("delayq_tenant_pending_jobs")).isEqualTo("gauge");
        assertThat(text.type("delayq_tenant_quota_exceeded_total")).isEqualTo("counter");
        assertThat(NamingRules.violations(text)).as("naming rules").isEmpty();
    }

    /** Scrapes until the timer's reading holds the tenant's job and schedule. */
    private static Exposition awaitTenantUse() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            Exposition text = Exposition.parseText(scrape(null).raw().body());
            Double pending = text.value("delayq_tenant_pending_jobs", Map.of("tenant", TENANT));
            if (pending != null && pending >= 2 || System.nanoTime() > deadline) {
                return text;
            }
            Thread.sleep(200);
        }
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

        awaitTenantUse();
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
