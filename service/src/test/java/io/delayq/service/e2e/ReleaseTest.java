package io.delayq.service.e2e;

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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST /v1/topics/{topic}/jobs/{id}/release} (issue 26, finding 23): a consumer gives a lease back without
 * using its attempt (a worker shutting down), at most {@code maxAttempts} times per job; after that a release counts
 * as the attempt, so a consumer that only ever releases still lets the job end. Bad input changes nothing. Runs on
 * both stores (e2e-on-postgres).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class ReleaseTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    private Api consumer;
    private String topic;

    @BeforeEach
    void setUp() {
        consumer = TestApps.api(APP).as(TestApps.ADMIN);
        topic = TestApps.topic();
    }

    @Test
    void aReleaseGivesTheLeaseBackWithoutUsingTheAttemptUpToMaxAttemptsTimes() {
        schedule("r", 2);
        for (int release = 1; release <= 2; release++) {
            JsonNode lease = lease();
            assertThat(lease.path("attempt").asInt()).as("release %d: the same attempt again", release).isEqualTo(1);
            Answer released = release("r", lease.path("leaseToken").asText());
            assertThat(released.status()).as(released.toString()).isEqualTo(204);
            JsonNode job = job("r");
            assertThat(job.path("state").asText()).isEqualTo("SCHEDULED");
            assertThat(job.path("attempts").asInt()).isZero();
            JsonNode entry = job.path("history").get(job.path("history").size() - 1);
            assertThat(entry.path("held").asBoolean()).as("%s", entry).isTrue();
            assertThat(entry.path("error").asText()).startsWith("released by the consumer");
        }
        // the third release of a job allowed two attempts counts as an attempt
        Answer counted = release("r", lease().path("leaseToken").asText());
        assertThat(counted.status()).as(counted.toString()).isEqualTo(204);
        JsonNode job = job("r");
        assertThat(job.path("attempts").asInt()).as("%s", job).isEqualTo(1);
        assertThat(job.path("lastError").asText()).contains("released");
        JsonNode second = lease();
        assertThat(second.path("attempt").asInt()).isEqualTo(2);
        Answer last = release("r", second.path("leaseToken").asText());
        assertThat(last.status()).as(last.toString()).isEqualTo(204);
        assertThat(job("r").path("state").asText()).as("releasing the last attempt uses it: the job ends")
                .isEqualTo("DEAD");
    }

    @Test
    void badReleasesAreRefusedAndChangeNothing() {
        schedule("b", 3);
        JsonNode lease = lease();
        String token = lease.path("leaseToken").asText();

        Answer missing = consumer.post("/v1/topics/" + topic + "/jobs/b/release", "{}");
        assertProblem(missing, 422, "leaseToken");
        assertProblem(consumer.post("/v1/topics/" + topic + "/jobs/b/release", "{\"leaseToken\": 5}"), 400,
                "leaseToken");
        assertProblem(consumer.post("/v1/topics/" + topic + "/jobs/b/release", "{\"leaseToken\": \"abc\"}"), 422,
                "leaseToken");
        assertProblem(consumer.post("/v1/topics/" + topic + "/jobs/b/release", "{\"leaseToken\": \"" + token
                + "\", \"delayMs\": 5}"), 400, "delayMs");
        assertProblem(release("b", "12345"), 409, "lease");
        assertProblem(release("nope", token), 404, "nope");
        assertProblem(TestApps.api(APP).post("/v1/topics/" + topic + "/jobs/b/release",
                "{\"leaseToken\": \"" + token + "\"}"), 403, "");

        JsonNode job = job("b");
        assertThat(job.path("state").asText()).as("nothing changed: %s", job).isEqualTo("LEASED");
        assertThat(job.path("attempts").asInt()).isEqualTo(1);
        assertThat(release("b", token).status()).isEqualTo(204);
    }

    private void schedule(String id, int maxAttempts) {
        Answer created = consumer.post("/v1/topics/" + topic + "/jobs",
                "{\"id\": \"" + id + "\", \"payload\": {}, \"maxAttempts\": " + maxAttempts + "}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    private JsonNode lease() {
        Answer answer = consumer.post("/v1/topics/" + topic + "/leases", "{\"max\": 1, \"waitMs\": 5000}");
        assertThat(answer.json().path("leases")).as(answer.toString()).hasSize(1);
        return answer.json().path("leases").get(0);
    }

    private Answer release(String id, String token) {
        return consumer.post("/v1/topics/" + topic + "/jobs/" + id + "/release", "{\"leaseToken\": \"" + token + "\"}");
    }

    private JsonNode job(String id) {
        return consumer.get("/v1/topics/" + topic + "/jobs/" + id).json();
    }

    private static void assertProblem(Answer answer, int status, String detailPart) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).contains(detailPart);
    }
}
