package io.delayq.service.jobs;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An exponential backoff that makes no sense is refused wherever a backoff is read — a job, a batch item, a topic's
 * settings — with a message that says the bounds, and nothing is stored: a zero first wait (every retry at once, for
 * ever), a multiplier of 1.7e308 (the second wait is already the cap). The configuration's default is held to the same
 * rules ({@code ConfigurationTest}).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class BackoffBoundsTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    /** Each backoff, and what its refusal must say: the field and the bound. */
    private static final Map<String, String> NONSENSE = Map.of(
            "{\"type\":\"exponential\",\"initial\":\"0s\",\"multiplier\":2.0,\"max\":\"1h\"}", "backoff.initial|at least 1ms",
            "{\"type\":\"exponential\",\"initial\":\"0ms\",\"multiplier\":2.0,\"max\":\"0ms\"}", "backoff.initial|at least 1ms",
            "{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":1.7e308,\"max\":\"1h\"}", "backoff.multiplier|1.0 to 10.0",
            "{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":10.5,\"max\":\"1h\"}", "backoff.multiplier|1.0 to 10.0");

    @Test
    void aNonsensicalExponentialBackoffIsRefusedEverywhereWithItsBounds() {
        Api admin = TestApps.api(APP).as(TestApps.ADMIN);
        String topic = TestApps.topic();
        NONSENSE.forEach((backoff, says) -> {
            String[] expected = says.split("\\|");
            Answer job = admin.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"j\",\"payload\":{},\"backoff\":"
                    + backoff + "}");
            assertRefused(job, backoff + " in a job", expected);
            Answer batch = admin.post("/v1/topics/" + topic + "/jobs/batch", "{\"jobs\":[{\"id\":\"b\",\"payload\":{},"
                    + "\"backoff\":" + backoff + "}]}");
            assertThat(batch.status()).as(batch.toString()).isEqualTo(200);
            assertThat(batch.json().at("/items/0/status").asInt()).as(backoff + " in a batch").isEqualTo(422);
            assertThat(batch.json().at("/items/0/error/detail").asText()).contains(expected[0]).contains(expected[1]);
            Answer topicPut = admin.put("/v1/topics/" + topic, "{\"maxAttempts\":3,\"backoff\":" + backoff + "}");
            assertRefused(topicPut, backoff + " in topic settings", expected);
        });
        assertThat(admin.get("/v1/topics/" + topic + "/jobs/j").status()).as("no job stored").isEqualTo(404);
        assertThat(admin.get("/v1/topics/" + topic + "/jobs/b").status()).isEqualTo(404);
        assertThat(admin.get("/v1/topics/" + topic).json().path("settings").has("maxAttempts"))
                .as("the settings were not changed").isFalse();

        Answer sane = admin.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"ok\",\"payload\":{},\"delayMs\":60000,"
                + "\"backoff\":{\"type\":\"exponential\",\"initial\":\"1ms\",\"multiplier\":10.0,\"max\":\"1h\"}}");
        assertThat(sane.status()).as("the bounds themselves are allowed: " + sane).isEqualTo(201);
    }

    private static void assertRefused(Answer answer, String what, String... says) {
        assertThat(answer.status()).as(what + ": " + answer).isEqualTo(422);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        for (String part : says) {
            assertThat(answer.detail()).as(what).contains(part);
        }
    }
}
