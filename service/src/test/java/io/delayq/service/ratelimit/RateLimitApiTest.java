package io.delayq.service.ratelimit;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A topic's {@code rateLimit} through the API (issue 29): set, shown, reset and refused when out of range (naming the
 * field, changing nothing); and pull leases held to it like push deliveries.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class RateLimitApiTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    private Api api;
    private Api admin;
    private String topic;

    @BeforeEach
    void setUp() {
        api = TestApps.api(APP);
        admin = api.as(TestApps.ADMIN);
        topic = TestApps.topic();
    }

    @Test
    void aRateLimitIsSetShownAndResetAndBurstDefaultsToATenthOfASecond() {
        Answer put = admin.put("/v1/topics/" + topic, "{\"rateLimit\": {\"perSecond\": 2.5, \"burst\": 4}}");
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
        JsonNode shown = api.get("/v1/topics/" + topic).json().path("settings").path("rateLimit");
        assertThat(shown.path("perSecond").asDouble()).isEqualTo(2.5);
        assertThat(shown.path("burst").asInt()).isEqualTo(4);

        Answer other = admin.put("/v1/topics/" + topic, "{\"maxAttempts\": 3}");
        assertThat(other.json().path("settings").path("rateLimit").path("burst").asInt())
                .as("a PUT without rateLimit keeps it").isEqualTo(4);

        Answer defaulted = admin.put("/v1/topics/" + topic, "{\"rateLimit\": {\"perSecond\": 200}}");
        assertThat(defaulted.json().path("settings").path("rateLimit").path("burst").asInt())
                .as("burst left out: a tenth of a second's worth").isEqualTo(20);

        Answer reset = admin.put("/v1/topics/" + topic, "{\"rateLimit\": null}");
        assertThat(reset.status()).isEqualTo(200);
        assertThat(reset.json().path("settings").has("rateLimit")).as(reset.toString()).isFalse();
        assertThat(reset.json().path("settings").path("maxAttempts").asInt()).isEqualTo(3);
    }

    @Test
    void outOfRangeValuesAreRefusedNamingTheFieldAndChangeNothing() {
        admin.put("/v1/topics/" + topic, "{\"rateLimit\": {\"perSecond\": 10, \"burst\": 2}}");
        String[][] bad = {
                {"{\"rateLimit\": {\"perSecond\": 0, \"burst\": 2}, \"paused\": true}", "rateLimit.perSecond"},
                {"{\"rateLimit\": {\"perSecond\": -1}, \"paused\": true}", "rateLimit.perSecond"},
                {"{\"rateLimit\": {\"burst\": 3}, \"paused\": true}", "rateLimit.perSecond"},
                {"{\"rateLimit\": {\"perSecond\": 5, \"burst\": 0}, \"paused\": true}", "rateLimit.burst"},
                {"{\"rateLimit\": {\"perSecond\": 2000000}, \"paused\": true}", "rateLimit.perSecond"},
        };
        for (String[] b : bad) {
            Answer answer = admin.put("/v1/topics/" + topic, b[0]);
            assertThat(answer.status()).as(b[0] + " -> " + answer).isEqualTo(422);
            assertThat(answer.contentType()).startsWith("application/problem+json");
            assertThat(answer.detail()).as(b[0]).contains(b[1]);
        }
        Answer wrongType = admin.put("/v1/topics/" + topic, "{\"rateLimit\": {\"perSecond\": \"fast\"}}");
        assertThat(wrongType.status()).as(wrongType.toString()).isEqualTo(400);
        assertThat(wrongType.detail()).contains("perSecond");
        Answer unknown = admin.put("/v1/topics/" + topic, "{\"rateLimit\": {\"perSecond\": 1, \"bust\": 3}}");
        assertThat(unknown.status()).as(unknown.toString()).isEqualTo(400);
        assertThat(unknown.detail()).contains("bust");

        JsonNode settings = api.get("/v1/topics/" + topic).json().path("settings");
        assertThat(settings.path("rateLimit").path("perSecond").asDouble()).isEqualTo(10.0);
        assertThat(settings.path("rateLimit").path("burst").asInt()).isEqualTo(2);
        assertThat(settings.path("paused").asBoolean()).as("nothing of a refused body is applied").isFalse();
    }

    /**
     * 5/s with a burst of 2: 20 pull jobs due at once are leased over about 3.6 s however eagerly the consumer asks,
     * never more than 7 in a second, each at its first attempt.
     */
    @Test
    void pullLeasesAreHeldToTheTopicsLimit() throws Exception {
        admin.put("/v1/topics/" + topic, "{\"rateLimit\": {\"perSecond\": 5, \"burst\": 2}}");
        int jobs = 20;
        for (int i = 0; i < jobs; i++) {
            assertThat(api.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"p" + i + "\",\"payload\":{}}").status())
                    .isEqualTo(201);
        }
        Api consumer = api.as(TestApps.CONSUMER);
        List<Long> leasedAt = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        long deadline = System.currentTimeMillis() + 30_000;
        while (ids.size() < jobs && System.currentTimeMillis() < deadline) {
            Answer leases = consumer.post("/v1/topics/" + topic + "/leases", "{\"max\":10,\"waitMs\":2000}");
            assertThat(leases.status()).as(leases.toString()).isEqualTo(200);
            long at = System.currentTimeMillis();
            for (JsonNode lease : leases.json().path("leases")) {
                leasedAt.add(at);
                ids.add(lease.path("id").asText());
                assertThat(lease.path("attempt").asInt()).as("waiting used no attempt: %s", lease).isEqualTo(1);
                Answer ack = consumer.post("/v1/topics/" + topic + "/jobs/" + lease.path("id").asText() + "/ack",
                        "{\"leaseToken\":\"" + lease.path("leaseToken").asText() + "\"}");
                assertThat(ack.status()).as(ack.toString()).isLessThan(300);
            }
        }
        assertThat(ids).as("every job leased").hasSize(jobs);
        assertThat(leasedAt).as("each job leased once").hasSize(jobs);
        leasedAt.sort(null);
        assertThat(RateLimitFleetTest.worstWindow(leasedAt, 1_000)).as("leases in the busiest second")
                .isLessThanOrEqualTo(5 + 2);
        assertThat(leasedAt.get(jobs - 1) - leasedAt.get(0)).as("the leases are spread by the limit")
                .isGreaterThanOrEqualTo(2_500);
    }
}
