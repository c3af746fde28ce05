package io.delayq.service.prometheus;

import io.delayq.mongo.EmbeddedMongo;
import io.delayq.redis.EmbeddedRedis;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.prometheus.DashboardQueries.Panel;
import io.delayq.service.prometheus.DashboardQueries.Target;
import io.delayq.service.prometheus.PrometheusServer.Sample;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.RequiresProgram;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every panel of the Grafana dashboard (docs/grafana/delayq.json) answers what the test did, asked of a real Prometheus
 * (Debian's {@code prometheus}) scraping <b>two</b> service instances on one store and one archive every second: N jobs
 * delivered across both instances answer N in the delivered panel (per-instance counters are summed), the depth of a
 * topic with K scheduled jobs answers K, not 2K (store-wide gauges, the same on every instance, take {@code max}).
 *
 * <p>Each target's {@code expr} is evaluated with the dashboard's variables substituted ({@code $topic}: every topic
 * of the test, as Grafana's multi-select writes them; {@code $__rate_interval}: 1m). A rate panel is also read as the
 * count it is the rate of ({@code rate(x[$__rate_interval])} → {@code x}), which the test knows exactly. A panel the
 * test has no expectation for fails it: a new panel needs one.
 *
 * <p>Skipped without {@code /usr/bin/prometheus} (install Debian's package: {@code apt-get install prometheus}).
 */
@Tag("slow") // two instances scraped by a real Prometheus (CONTRIBUTING.md: the fast run leaves it out)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@RequiresProgram(value = PrometheusServer.PROGRAM, debianPackage = "prometheus")
class DashboardOnPrometheusTest {
    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "delayq.json");
    private static final long SETTLE_MS = 40_000;

    @TempDir
    static Path dir;

    private static EmbeddedRedis redis;
    private static EmbeddedMongo mongo;
    private static final List<DropwizardTestSupport<DelayqConfiguration>> INSTANCES = new ArrayList<>();
    private static PrometheusServer prometheus;
    private static CallbackReceiver receiver;
    private static CallbackReceiver down;
    private static Traffic traffic;
    private static Api operator;
    private static List<Panel> panels;

    // the test's topics, and what it did in each
    private static final String DELIVERED = TestApps.topic();
    private static final String DIED = TestApps.topic();
    private static final String SCHEDULED = TestApps.topic();
    private static final String LEASED = TestApps.topic();
    private static final String CIRCUIT = TestApps.topic();
    private static final String DIED_WHILE_ARCHIVE_DOWN = TestApps.topic();
    private static final String PARKED = TestApps.topic();
    /** A tenant owning exactly SCHEDULED, its maxPendingJobs at the K jobs there: one more is refused. */
    private static final String TENANT = "quota-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    private static final List<String> TOPICS = List.of(DELIVERED, DIED, SCHEDULED, LEASED, CIRCUIT,
            DIED_WHILE_ARCHIVE_DOWN);
    private static final int N_DELIVERED = 6;
    private static final int N_DIED = 2;
    private static final int K_SCHEDULED = 4;
    private static final int N_LEASED = 2;
    private static final int N_HELD = 3;
    private static final int SUBSCRIBERS = 3;
    private static int circuitAttempts;

    @BeforeAll
    static void twoInstancesOneStoreScrapedByPrometheus() throws Exception {
        panels = DashboardQueries.panels(DASHBOARD);
        redis = EmbeddedRedis.start(0, null, false);
        mongo = EmbeddedMongo.start(0, null);
        receiver = new CallbackReceiver();
        down = new CallbackReceiver();
        List<String> targets = new ArrayList<>();
        List<Api> producers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            // Not TestApps.support: its own store override would compete with this one (overrides are a Set).
            DropwizardTestSupport<DelayqConfiguration> instance = new DropwizardTestSupport<>(DelayqApplication.class,
                    ResourceHelpers.resourceFilePath("test-config.yml"),
                    ConfigOverride.config("store.uri", redis.uri()),
                    ConfigOverride.config("archive.uri", mongo.uri()),
                    ConfigOverride.config("archive.serverSelectionTimeout", "1s"),
                    ConfigOverride.config("delivery.breaker.enabled", "true"),
                    ConfigOverride.config("prometheus.tenantUseInterval", "1s"));
            instance.before();
            INSTANCES.add(instance);
            targets.add("127.0.0.1:" + instance.getAdminPort());
            producers.add(new Api("http://127.0.0.1:" + instance.getLocalPort(), TestApps.PRODUCER));
        }
        prometheus = PrometheusServer.start(dir, targets);

        traffic = new Traffic(receiver, producers.toArray(Api[]::new));
        traffic.deliver(DELIVERED, N_DELIVERED);
        traffic.kill(DIED, N_DIED);
        traffic.scheduleLater(SCHEDULED, K_SCHEDULED, 3_600_000);
        operator = producers.get(0).as(TestApps.ADMIN);
        Api.Answer tenant = operator.put("/v1/admin/tenants/" + TENANT, "{\"topics\":[\"" + SCHEDULED + "\"],"
                + "\"quotas\":{\"maxPendingJobs\":" + K_SCHEDULED + "}}");
        assertThat(tenant.status()).as(tenant.toString()).isEqualTo(201);
        Api.Answer refused = operator.post("/v1/topics/" + SCHEDULED + "/jobs",
                "{\"id\":\"over-quota\",\"delayMs\":3600000,\"payload\":{}}");
        assertThat(refused.status()).as(refused.toString()).isEqualTo(429);
        traffic.lease(LEASED, N_LEASED);
        List<String> held = traffic.openCircuit(CIRCUIT, down, N_HELD);
        for (String id : held) {
            circuitAttempts += traffic.attempts(CIRCUIT, id);
        }
        for (int i = 0; i < 2; i++) {
            traffic.parkLeaseRequest(PARKED); // one on each instance
        }
        for (int i = 0; i < SUBSCRIBERS; i++) {
            traffic.subscribe(DELIVERED);
        }
    }

    @AfterAll
    static void stopAll() {
        if (traffic != null) {
            traffic.close();
        }
        // In reverse: each restores on stop the system properties its overrides found when it started, and the
        // second found the first's; stopped first to last, the first's store and archive would stay configured for
        // the next test class of this JVM.
        for (int i = INSTANCES.size() - 1; i >= 0; i--) {
            try {
                INSTANCES.get(i).after();
            } catch (RuntimeException e) {
                // stopping with the archive down; the next instance must still stop
            }
        }
        if (prometheus != null) {
            prometheus.close();
        }
        for (AutoCloseable c : new AutoCloseable[]{receiver, down, mongo, redis}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // closing what the test started; nothing to keep
            }
        }
    }

    /** What one panel target must answer, read as counts. */
    private interface Expected extends Predicate<List<Sample>> {
    }

    /** One sample per topic of {@code values}, each of that value (topics the test did nothing in may show 0). */
    private static Expected byTopic(Map<String, Double> values) {
        return samples -> {
            Map<String, Double> seen = samples.stream().collect(Collectors.toMap(s -> s.labels().get("topic"),
                    Sample::value, (a, b) -> Double.NaN));
            return values.entrySet().stream().allMatch(e -> e.getValue().equals(seen.get(e.getKey())))
                    && seen.entrySet().stream().allMatch(e -> values.containsKey(e.getKey()) || e.getValue() == 0);
        };
    }

    /** One sample, of the test's tenant, of {@code value}. */
    private static Expected byTenant(double value) {
        return samples -> samples.size() == 1 && TENANT.equals(samples.get(0).labels().get("tenant"))
                && samples.get(0).value() == value;
    }

    private static Expected one(double value) {
        return samples -> samples.size() == 1 && samples.get(0).value() == value;
    }

    private static Expected between(double low, double high) {
        return samples -> samples.size() == 1 && samples.get(0).value() >= low && samples.get(0).value() <= high;
    }

    /** One sample per instance, each {@code value}. */
    private static Expected eachInstance(double value) {
        return samples -> samples.size() == INSTANCES.size() && samples.stream().allMatch(s -> s.value() == value);
    }

    private static Expected eachInstancePositive() {
        return samples -> samples.size() == INSTANCES.size() && samples.stream().allMatch(s -> s.value() > 0);
    }

    private static Map<String, Double> topics(double delivered, double died, double scheduled, double leased,
                                              double circuit) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(DELIVERED, delivered);
        m.put(DIED, died);
        m.put(SCHEDULED, scheduled);
        m.put(LEASED, leased);
        m.put(CIRCUIT, circuit);
        return m;
    }

    /** Every panel's every target, by title and legend: what the test did, as counts. */
    private static Map<String, Map<String, Expected>> whatTheTestDid() {
        Map<String, Map<String, Expected>> e = new LinkedHashMap<>();
        e.put("Delivered per second, by topic", Map.of("{{topic}}", byTopic(topics(N_DELIVERED, 0, 0, 0, 0))));
        e.put("Failed attempts per second, by topic",
                Map.of("{{topic}}", byTopic(topics(0, N_DIED, 0, 0, circuitAttempts))));
        e.put("Dead letters per second, by topic", Map.of("{{topic}}", byTopic(topics(0, N_DIED, 0, 0, 0))));
        e.put("Enqueued per second, by topic",
                Map.of("{{topic}}", byTopic(topics(N_DELIVERED, N_DIED, K_SCHEDULED, N_LEASED, N_HELD))));
        e.put("Delivery lateness (due time to start of delivery)", Map.of("p50", between(0, 30), "p99", between(0, 60)));
        e.put("Callback latency", Map.of("p50", between(0, 10), "p99", between(0, 10), "mean", between(0, 10)));
        e.put("Scheduled jobs, by topic", Map.of("{{topic}}", byTopic(topics(0, 0, K_SCHEDULED, 0, N_HELD))));
        e.put("Leased jobs, by topic", Map.of("{{topic}}", byTopic(topics(0, 0, 0, N_LEASED, 0))));
        e.put("Pull consumers and callbacks in flight", Map.of("parked lease requests", one(2),
                "event stream subscribers", one(SUBSCRIBERS), "callbacks in flight", one(0)));
        e.put("Archive backlog", Map.of("outbox", one(0), "quarantined", one(0)));
        e.put("Circuit breaker", Map.of("open circuits", one(1), "held jobs", one(N_HELD)));
        e.put("Store and archive reachable, by instance", Map.of("store {{instance}}", eachInstance(1),
                "archive {{instance}}", eachInstance(1)));
        e.put("JVM heap", Map.of("used {{instance}}", eachInstancePositive(), "max {{instance}}",
                eachInstancePositive()));
        e.put("Tenants: pending jobs and their quota", Map.of("{{tenant}} pending", byTenant(K_SCHEDULED),
                "{{tenant}} limit", byTenant(K_SCHEDULED)));
        e.put("Tenants: quota refusals per second", Map.of("{{tenant}} {{quota}}", samples -> samples.size() == 1
                && TENANT.equals(samples.get(0).labels().get("tenant"))
                && "maxPendingJobs".equals(samples.get(0).labels().get("quota")) && samples.get(0).value() == 1));
        return e;
    }

    @Test
    @Order(1)
    void everyPanelAnswersWhatTheTestDidAcrossBothInstances() {
        Map<String, Map<String, Expected>> expected = whatTheTestDid();
        assertThat(panels).extracting(Panel::title).as("panels of the dashboard, each with an expectation here")
                .containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Panel panel : panels) {
            assertThat(panel.targets()).extracting(Target::legend).as(panel.title())
                    .containsExactlyInAnyOrderElementsOf(expected.get(panel.title()).keySet());
            for (Target target : panel.targets()) {
                awaitAnswer(panel.title() + " / " + target.legend(), counted(target.expr()),
                        expected.get(panel.title()).get(target.legend()));
                prometheus.query(substituted(target.expr())); // valid PromQL as drawn
            }
        }
        // those answers tell sum from max: each store-wide gauge has a series on both instances
        for (String perInstance : List.of("delayq_topic_scheduled{topic=\"" + SCHEDULED + "\"}",
                "delayq_topic_leased{topic=\"" + LEASED + "\"}", "delayq_breaker_held_jobs", "delayq_archive_backlog",
                "delayq_tenant_pending_jobs{tenant=\"" + TENANT + "\"}")) {
            awaitAnswer("a series of " + perInstance + " on each instance", "count(" + perInstance + ")", one(2));
        }
        awaitAnswer("delivered on both instances", "count(delayq_topic_delivered_total{topic=\"" + DELIVERED
                + "\"} > 0)", between(1, 2));
        assertThat(prometheus.labelValues("delayq_topic_enqueued_total", "topic")).as("the $topic variable's query")
                .containsAll(List.of(DELIVERED, DIED, SCHEDULED, LEASED, CIRCUIT));

        // The rate panels as Grafana draws them. A counter's first scrape is its start for rate(): the jobs counted
        // before Prometheus first saw a topic's series (all of the above: a job is delivered within a scrape) are not
        // in any rate. So more of them, now that the series exist.
        traffic.deliver(DELIVERED, 2);
        traffic.kill(DIED, 1);
        for (Panel panel : panels) {
            for (Target target : panel.targets()) {
                if (target.expr().contains("rate(") && target.legend().equals("{{topic}}")) {
                    awaitAnswer(panel.title() + " as drawn, after more jobs", substituted(target.expr()),
                            samples -> samples.stream().anyMatch(s -> s.value() > 0));
                }
            }
        }
    }

    @Test
    @Order(2)
    void whileTheArchiveIsDownTheBacklogIsCountedOnceAndEveryInstanceSaysSo() {
        // The first test's last dead letter may still be on its way to the archive (kill() waits for DEAD in the
        // store, not for the archive), and the backlog gauge is cached for up to 5 s: wait for the archive to hold
        // every one of them, then for the gauge to say so, before the archive goes down.
        io.delayq.core.testing.Await.until("the first test's dead letters archived", 30_000, () -> operator
                .get("/v1/admin/dead-letters?topic=" + DIED + "&limit=100").json().path("items").size() == N_DIED + 1);
        awaitAnswer("every dead letter archived first", "max(delayq_archive_backlog)", one(0));
        mongo.close();
        traffic.kill(DIED_WHILE_ARCHIVE_DOWN, N_DIED);

        Map<String, Expected> backlog = Map.of("outbox", one(N_DIED), "quarantined", one(0));
        Map<String, Expected> reachable = Map.of("store {{instance}}", eachInstance(1),
                "archive {{instance}}", eachInstance(0));
        for (Panel panel : panels) {
            Map<String, Expected> expected = switch (panel.title()) {
                case "Archive backlog" -> backlog;
                case "Store and archive reachable, by instance" -> reachable;
                case "Dead letters per second, by topic" -> Map.of("{{topic}}", byTopic(Map.of(
                        DIED, N_DIED + 1.0, DIED_WHILE_ARCHIVE_DOWN, (double) N_DIED)));
                default -> Map.of();
            };
            for (Target target : panel.targets()) {
                if (expected.containsKey(target.legend())) {
                    awaitAnswer(panel.title() + " / " + target.legend() + " with the archive down",
                            counted(target.expr()), expected.get(target.legend()));
                }
            }
        }
        awaitAnswer("the backlog on both instances", "count(delayq_archive_backlog == " + N_DIED + ")", one(2));
    }

    /** The expression with the dashboard's variables as Grafana substitutes them. */
    private static String substituted(String expr) {
        return expr.replace("$topic", String.join("|", TOPICS)).replace("$__rate_interval", "1m");
    }

    /** A rate panel read as the count it is the rate of: {@code rate(x[$__rate_interval])} becomes {@code x}. */
    private static String counted(String expr) {
        return substituted(expr.replaceAll("rate\\(([^\\[]+)\\[\\$__rate_interval]\\)", "$1"));
    }

    /** Asks Prometheus until the answer is the expected one (scrapes are 1 s apart, store gauges cached for 5 s). */
    private static void awaitAnswer(String what, String query, Predicate<List<Sample>> expected) {
        long deadline = System.currentTimeMillis() + SETTLE_MS;
        List<Sample> answer = prometheus.query(query);
        while (!expected.test(answer)) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError(what + ": " + query + " answered " + describe(answer));
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            answer = prometheus.query(query);
        }
    }

    private static String describe(List<Sample> answer) {
        return answer.stream().map(s -> new TreeMap<>(s.labels()) + "=" + s.value()).toList().toString();
    }
}
