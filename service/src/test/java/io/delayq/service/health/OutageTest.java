package io.delayq.service.health;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.mongo.EmbeddedMongo;
import io.delayq.redis.EmbeddedRedis;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.errors.Problem;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What load balancers, operators and clients see while the archive or the job store is down, with a Redis and an
 * archive of the test's own (real servers, stopped and started again by the test):
 * <ul>
 *   <li>an archive outage: {@code /health-check} (application port, what a load balancer probes) stays 200 while jobs
 *   are still scheduled and delivered; the admin {@code /healthcheck} details the archive as unhealthy;
 *   {@code delayq_archive_up} is 0 and {@code delayq_notices_due} (read from the archive) has no sample; a dead-letter
 *   request is 503 with {@code Retry-After};</li>
 *   <li>a store outage: {@code /health-check} is 503, and 200 again when the store is back; the admin
 *   {@code /healthcheck} details the store as unhealthy; {@code delayq_store_up} is 0; the gauges read from the store
 *   have no sample (not -1) and come back; scheduling a job is 503 with {@code Retry-After}.</li>
 * </ul>
 * Redis only: the outage is the test's own Redis server stopping.
 */
class OutageTest {
    private static final Pattern SAMPLE = Pattern.compile("(?m)^(\\w+)(?:\\{[^}]*})? (\\S+)$");

    @TempDir
    Path redisData;

    private EmbeddedRedis redis;
    private EmbeddedMongo mongo;
    private DropwizardTestSupport<DelayqConfiguration> app;
    private final CallbackReceiver receiver = new CallbackReceiver();

    @BeforeEach
    void start() throws Exception {
        redis = EmbeddedRedis.start(0, redisData, true);
        mongo = EmbeddedMongo.start(0, null);
        // Not TestApps.support: its store override would compete with this one (Dropwizard keeps overrides in a Set,
        // so which of two for one field wins changes from run to run).
        app = new DropwizardTestSupport<>(DelayqApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
                ConfigOverride.config("store.uri", redis.uri()),
                ConfigOverride.config("archive.uri", mongo.uri()),
                ConfigOverride.config("archive.serverSelectionTimeout", "1s"));
        app.before();
        Await.until("/health-check healthy after the start", 15_000, () -> probe() == 200);
    }

    @AfterEach
    void stop() {
        try {
            app.after();
        } finally {
            receiver.close();
            mongo.close();
            redis.close();
        }
    }

    @Test
    void anArchiveOutageLeavesTheLoadBalancerCheckHealthyAndDeadLettersAnswer503WithRetryAfter() {
        mongo.close();
        Await.until("the archive check unhealthy", 20_000, () -> scrape().contains("delayq_archive_up 0.0"));
        Await.until("the notices due, read from the archive, without a sample", 20_000,
                () -> value(scrape(), "delayq_notices_due") == null);

        Answer lb = loadBalancerCheck();
        assertThat(lb.status()).as("%s", lb).isEqualTo(200);
        assertThat(probe()).isEqualTo(200);
        assertThat(view(lb.json(), "archive").path("healthy").asBoolean()).as("%s", lb).isFalse();
        assertThat(view(lb.json(), "archive").path("critical").asBoolean()).as("%s", lb).isFalse();
        assertThat(view(lb.json(), "store").path("healthy").asBoolean()).as("%s", lb).isTrue();
        JsonNode details = admin().get("/healthcheck").json();
        assertThat(details.path("archive").path("healthy").asBoolean()).as("%s", details).isFalse();
        assertThat(details.path("archive").path("message").asText()).as("%s", details).isNotBlank();
        assertThat(details.path("store").path("healthy").asBoolean()).as("%s", details).isTrue();
        assertThat(scrape()).contains("delayq_store_up 1.0");

        // jobs still flow
        String topic = TestApps.topic();
        Answer created = producer().post("/v1/topics/" + topic + "/jobs", """
                {"payload": {}, "callback": {"url": "%s"}}""".formatted(receiver.url("/ok/" + topic)));
        assertThat(created.status()).as("%s", created).isEqualTo(201);
        assertThat(receiver.await(r -> r.path().equals("/ok/" + topic), 1, Duration.ofSeconds(15))).hasSize(1);

        Answer deadLetters = producer().as(TestApps.ADMIN).get("/v1/admin/dead-letters");
        assertThat(deadLetters.status()).as("%s", deadLetters).isEqualTo(503);
        assertThat(deadLetters.contentType()).isEqualTo(Problem.MEDIA_TYPE);
        assertThat(deadLetters.header("Retry-After")).isEqualTo(String.valueOf(Problem.RETRY_AFTER_SECONDS));
        assertThat(probe()).as("still in the load balancer").isEqualTo(200);
    }

    @Test
    void aStoreOutageFailsTheLoadBalancerCheckAndStoreGaugesHaveNoSampleUntilItIsBack() {
        String topic = TestApps.topic();
        assertThat(producer().post("/v1/topics/" + topic + "/jobs", "{\"payload\": {}, \"delayMs\": 600000}").status())
                .isEqualTo(201);
        Await.until("the depth gauge", 15_000, () -> value(scrape(), "delayq_topic_scheduled") != null);
        assertThat(scrape()).contains("delayq_store_up 1.0");
        int port = redis.port();

        redis.kill();
        Await.until("the scheduled store check unhealthy", 20_000,
                () -> !view(loadBalancerCheck().json(), "store").path("healthy").asBoolean());
        Answer lb = loadBalancerCheck();
        assertThat(lb.status()).as("%s", lb).isEqualTo(503);
        assertThat(probe()).isEqualTo(503);
        assertThat(view(lb.json(), "store").path("critical").asBoolean()).as("%s", lb).isTrue();
        JsonNode details = admin().get("/healthcheck").json();
        assertThat(details.path("store").path("healthy").asBoolean()).as("%s", details).isFalse();
        assertThat(details.path("store").path("message").asText()).as("%s", details).contains("Redis");
        assertThat(details.path("archive").path("healthy").asBoolean()).as("%s", details).isTrue();

        Await.until("the store's gauges without a sample", 20_000, () -> {
            String text = scrape();
            return value(text, "delayq_topic_scheduled") == null && value(text, "delayq_archive_backlog") == null
                    && value(text, "delayq_archive_quarantine") == null
                    && value(text, "delayq_breaker_open_circuits") == null
                    && value(text, "delayq_breaker_held_jobs") == null;
        });
        String down = scrape();
        assertThat(down).contains("delayq_store_up 0.0").doesNotContainPattern("(?m)^delayq_.* -1(\\.0)?$");
        assertThat(admin().get("/metrics").json().path("gauges").path("delayq.topics." + topic + ".scheduled")
                .path("value").isNull()).as("/metrics says null, not -1").isTrue();

        Answer refused = producer().post("/v1/topics/" + topic + "/jobs", "{\"payload\": {}}");
        assertThat(refused.status()).as("%s", refused).isEqualTo(503);
        assertThat(refused.contentType()).isEqualTo(Problem.MEDIA_TYPE);
        assertThat(refused.header("Retry-After")).isEqualTo(String.valueOf(Problem.RETRY_AFTER_SECONDS));

        redis = EmbeddedRedis.start(port, redisData, true);
        Await.until("/health-check 200 again", 20_000, () -> probe() == 200);
        Await.until("the depth gauge back", 20_000, () -> Double.valueOf(1.0).equals(
                value(scrape(), "delayq_topic_scheduled")));
        assertThat(scrape()).contains("delayq_store_up 1.0");
    }

    /** {@code /health-check?name=all}: the status a load balancer gets, and every scheduled check listed. */
    private Answer loadBalancerCheck() {
        return new Api("http://127.0.0.1:" + app.getLocalPort(), null).get("/health-check?name=all");
    }

    /** {@code /health-check} with no parameters, as a load balancer's probe asks: the status only. */
    private int probe() {
        return new Api("http://127.0.0.1:" + app.getLocalPort(), null).get("/health-check").status();
    }

    private Api admin() {
        return new Api("http://127.0.0.1:" + app.getAdminPort(), null);
    }

    private Api producer() {
        return new Api("http://127.0.0.1:" + app.getLocalPort(), TestApps.PRODUCER);
    }

    private String scrape() {
        Answer answer = admin().get("/metrics/prometheus");
        assertThat(answer.status()).as("%s", answer).isEqualTo(200);
        return answer.raw().body();
    }

    /** The value of the first sample of {@code name} in a scrape, or null when it has none. */
    private static Double value(String scrape, String name) {
        Matcher m = SAMPLE.matcher(scrape);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return Double.valueOf(m.group(2));
            }
        }
        return null;
    }

    /** One check's entry in {@code /health-check}'s answer (a list of {name, healthy, type, critical}). */
    private static JsonNode view(JsonNode checks, String name) {
        for (JsonNode check : checks) {
            if (name.equals(check.path("name").asText())) {
                return check;
            }
        }
        throw new AssertionError("no " + name + " in " + checks);
    }
}
