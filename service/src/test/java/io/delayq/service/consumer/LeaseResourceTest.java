package io.delayq.service.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.core.testing.Await;
import io.dropwizard.core.Configuration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The pull API over real HTTP and a real Redis. */
@ExtendWith(DropwizardExtensionsSupport.class)
class LeaseResourceTest {
    static final DropwizardAppExtension<Configuration> APP =
            new DropwizardAppExtension<>(ConsumerTestApp.class, ConsumerTestApp.config());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private String topic;
    private JobStore store;

    @BeforeEach
    void setUp() {
        topic = "t-" + UUID.randomUUID();
        store = APP.<ConsumerTestApp>getApplication().store();
    }

    @Test
    void answersAtOnceWhenNothingIsDueAndNoWaitIsAsked() throws Exception {
        HttpResponse<String> response = post("/v1/topics/" + topic + "/leases", "{}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(response.body()).get("leases")).isEmpty();
    }

    @Test
    void aLongPollStartedBeforeJobsFallDueReturnsThemWhenDueNotBefore() throws Exception {
        long runAt = store.now() + 800;
        store.enqueue(List.of(
                NewJob.at(topic, "a", "{\"n\":1}", runAt, 3),
                NewJob.at(topic, "b", "[1,2]", runAt, 3),
                NewJob.at(topic, "c", "\"text\"", runAt, 3)));

        long sentAt = System.currentTimeMillis();
        HttpResponse<String> response = post("/v1/topics/" + topic + "/leases", "{\"max\":10,\"waitMs\":5000}");
        long answeredAt = System.currentTimeMillis();

        assertThat(sentAt).as("the poll started before the jobs fell due").isLessThan(runAt);
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode leases = JSON.readTree(response.body()).get("leases");
        assertThat(leases).hasSize(3);
        assertThat(answeredAt).isGreaterThanOrEqualTo(runAt);
        assertThat(answeredAt - runAt).as("answered within a few hundred ms of due").isLessThan(750);
        for (JsonNode lease : leases) {
            assertThat(lease.get("topic").asText()).isEqualTo(topic);
            assertThat(lease.get("attempt").asInt()).isEqualTo(1);
            assertThat(lease.get("leaseToken").isTextual()).isTrue();
            assertThat(Instant.parse(lease.get("runAt").asText()).toEpochMilli()).isEqualTo(runAt);
            assertThat(Instant.parse(lease.get("leaseDeadline").asText())).isAfter(Instant.ofEpochMilli(runAt));
        }
        assertThat(leases.findValuesAsText("id")).containsExactlyInAnyOrder("a", "b", "c");
        JsonNode a = leases.get(leases.findValuesAsText("id").indexOf("a"));
        assertThat(a.get("payload")).isEqualTo(JSON.readTree("{\"n\":1}"));
    }

    @Test
    void aParkedPollIsWokenByAJobScheduledWhileItWaits() throws Exception {
        CompletableFuture<HttpResponse<String>> poll = postAsync("/v1/topics/" + topic + "/leases",
                "{\"waitMs\":10000}");
        Thread.sleep(300);
        long scheduledAt = System.currentTimeMillis();
        store.enqueue(NewJob.delayed(topic, "late", "{}", 0, 3));

        HttpResponse<String> response = poll.get(10, TimeUnit.SECONDS);
        assertThat(JSON.readTree(response.body()).get("leases").findValuesAsText("id")).containsExactly("late");
        assertThat(System.currentTimeMillis() - scheduledAt).isLessThan(2_000);
    }

    @Test
    void aPollThatFindsNothingAnswersEmptyAfterItsWait() throws Exception {
        long start = System.currentTimeMillis();
        HttpResponse<String> response = post("/v1/topics/" + topic + "/leases", "{\"waitMs\":300}");

        assertThat(System.currentTimeMillis() - start).isGreaterThanOrEqualTo(300);
        assertThat(JSON.readTree(response.body()).get("leases")).isEmpty();
    }

    @Test
    void aSecondAckIsRefusedWithConflict() throws Exception {
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 3));
        JsonNode lease = leaseOne(topic, "{}");

        HttpResponse<String> first = post(jobPath("j", "ack"), token(lease));
        HttpResponse<String> second = post(jobPath("j", "ack"), token(lease));

        assertThat(first.statusCode()).isEqualTo(204);
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(second.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(JSON.readTree(second.body()).get("detail").asText()).contains("lease");
        assertThat(store.find(new JobRef(topic, "j")).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
    }

    @Test
    void anExpiredLeaseComesBackAsTheNextAttemptAndItsTokenIsRefused() throws Exception {
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 3));
        JsonNode first = leaseOne(topic, "{\"leaseMs\":200}");
        Thread.sleep(300);
        // The delivery engine expires leases in the service; here the test does what its timer would.
        assertThat(store.expireLeases(topic, 10)).isEqualTo(1);

        JsonNode second = leaseOne(topic, "{\"waitMs\":2000}");

        assertThat(second.get("attempt").asInt()).isEqualTo(2);
        assertThat(second.get("leaseToken").asText()).isNotEqualTo(first.get("leaseToken").asText());
        assertThat(post(jobPath("j", "ack"), token(first)).statusCode()).isEqualTo(409);
        assertThat(post(jobPath("j", "extend"), "{\"leaseToken\":\"" + first.get("leaseToken").asText()
                + "\",\"leaseMs\":1000}").statusCode()).isEqualTo(409);
        assertThat(post(jobPath("j", "nack"), token(first)).statusCode()).isEqualTo(409);
        assertThat(post(jobPath("j", "ack"), token(second)).statusCode()).isEqualTo(204);
    }

    @Test
    void nackWithADelayPutsTheJobBackNoEarlierThanThat() throws Exception {
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 5));
        JsonNode first = leaseOne(topic, "{}");
        long nackedAt = System.currentTimeMillis();
        HttpResponse<String> nack = post(jobPath("j", "nack"), "{\"leaseToken\":\"" + first.get("leaseToken").asText()
                + "\",\"delayMs\":500,\"error\":\"not yet\"}");
        assertThat(nack.statusCode()).isEqualTo(204);

        JsonNode again = leaseOne(topic, "{\"waitMs\":3000}");

        assertThat(System.currentTimeMillis() - nackedAt).isGreaterThanOrEqualTo(500);
        assertThat(again.get("attempt").asInt()).isEqualTo(2);
        assertThat(store.find(new JobRef(topic, "j")).orElseThrow().lastError()).isEqualTo("not yet");
    }

    @Test
    void nackWithoutDelayOnTheLastAttemptKillsTheJob() throws Exception {
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 1));
        JsonNode lease = leaseOne(topic, "{}");

        HttpResponse<String> nack = post(jobPath("j", "nack"), "{\"leaseToken\":\"" + lease.get("leaseToken").asText()
                + "\",\"error\":\"boom\"}");

        assertThat(nack.statusCode()).isEqualTo(204);
        assertThat(store.find(new JobRef(topic, "j")).orElseThrow().state()).isEqualTo(JobState.DEAD);
    }

    @Test
    void nackWithoutDelayFollowsTheRetryPolicy() throws Exception {
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 5));
        JsonNode lease = leaseOne(topic, "{}");
        long before = store.now();

        post(jobPath("j", "nack"), token(lease));

        var job = store.find(new JobRef(topic, "j")).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
        // The default backoff waits 1 s ± 20 % after the first failure.
        assertThat(job.runAt() - before).isBetween(800L, 1_700L);
    }

    @Test
    void extendMovesTheDeadline() throws Exception {
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 3));
        // 5 s, not 1: the extension must arrive while the lease holds, even on a loaded machine
        JsonNode lease = leaseOne(topic, "{\"leaseMs\":5000}");
        Instant deadline = Instant.parse(lease.get("leaseDeadline").asText());

        HttpResponse<String> extended = post(jobPath("j", "extend"), "{\"leaseToken\":\""
                + lease.get("leaseToken").asText() + "\",\"leaseMs\":60000}");

        assertThat(extended.statusCode()).isEqualTo(200);
        assertThat(Instant.parse(JSON.readTree(extended.body()).get("leaseDeadline").asText()))
                .isAfter(deadline.plusSeconds(45));
        assertThat(store.nextLeaseDeadline(topic)).isGreaterThan(deadline.toEpochMilli() + 45_000);
    }

    @Test
    void anExplicitLeaseLengthWinsOverTheJobsOwnTimeout() throws Exception {
        store.enqueue(new NewJob(topic, "j", "{}", 0L, null, 3, null, null, 600_000L, false,
                io.delayq.core.Delivery.PULL));
        long now = store.now();

        JsonNode lease = leaseOne(topic, "{\"leaseMs\":2000}");

        assertThat(Instant.parse(lease.get("leaseDeadline").asText()).toEpochMilli() - now).isBetween(1_000L, 5_000L);
    }

    @Test
    void badInputIsRefusedAndChangesNothing() throws Exception {
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 3));

        assertThat(post("/v1/topics/" + topic + "/leases", "{\"max\":0}").statusCode()).isBetween(400, 422);
        assertThat(post("/v1/topics/" + topic + "/leases", "{\"max\":1001}").statusCode()).isBetween(400, 422);
        assertThat(post("/v1/topics/" + topic + "/leases", "{\"waitMs\":60001}").statusCode()).isBetween(400, 422);
        assertThat(post("/v1/topics/" + topic + "/leases", "{\"leaseMs\":0}").statusCode()).isBetween(400, 422);
        assertThat(post("/v1/topics/bad%20topic/leases", "{}").statusCode()).isBetween(400, 422);
        assertThat(post(jobPath("j", "ack"), "{}").statusCode()).isBetween(400, 422);
        assertThat(post(jobPath("j", "ack"), "{\"leaseToken\":\"nonsense\"}").statusCode()).isBetween(400, 422);
        HttpResponse<String> malformed = post("/v1/topics/" + topic + "/leases", "{\"max\":");
        assertThat(malformed.statusCode()).isEqualTo(400);

        assertThat(store.find(new JobRef(topic, "j")).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(post(jobPath("nope", "ack"), "{\"leaseToken\":\"1\"}").statusCode()).isIn(404, 409);
    }

    @Test
    void aTokenIsAStringOf22CharactersAndOneAnEarlierVersionIssuedIsStillReadAsAToken() throws Exception {
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 3));
        JsonNode lease = leaseOne(topic, "{}");
        assertThat(lease.get("leaseToken").asText()).matches("[A-Za-z0-9_-]{22}");

        assertThat(post(jobPath("j", "ack"), "{\"leaseToken\":\"5225711974607460001\"}").statusCode())
                .as("a decimal token, as leases made before 128-bit tokens have, is a token: not this lease's")
                .isEqualTo(409);
        HttpResponse<String> nonsense = post(jobPath("j", "ack"), "{\"leaseToken\":\"" + "x".repeat(300) + "\"}");
        assertThat(nonsense.statusCode()).isBetween(400, 422);
        assertThat(JSON.readTree(nonsense.body()).get("detail").asText())
                .contains("22 characters of base64url").hasSizeLessThan(300);

        assertThat(store.find(new JobRef(topic, "j")).orElseThrow().state()).isEqualTo(JobState.LEASED);
        assertThat(post(jobPath("j", "ack"), token(lease)).statusCode()).isEqualTo(204);
    }

    @Test
    void manyConcurrentConsumersNeverHoldTheSameJob() throws Exception {
        int jobs = 150;
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(NewJob.delayed(topic, "j" + i, "{\"i\":" + i + "}", i % 3 == 0 ? 0 : 300, 3));
        }
        store.enqueue(batch);
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        AtomicInteger acked = new AtomicInteger();
        ExecutorService consumers = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<Void>> loops = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                loops.add(CompletableFuture.runAsync(() -> {
                    try {
                        while (acked.get() < jobs) {
                            JsonNode leases = JSON.readTree(post("/v1/topics/" + topic + "/leases",
                                    "{\"max\":7,\"waitMs\":500,\"leaseMs\":30000}").body()).get("leases");
                            for (JsonNode lease : leases) {
                                seen.computeIfAbsent(lease.get("id").asText(), k -> new AtomicInteger()).incrementAndGet();
                                assertThat(post(jobPath(lease.get("id").asText(), "ack"), token(lease)).statusCode())
                                        .isEqualTo(204);
                                acked.incrementAndGet();
                            }
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }, consumers));
            }
            CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        } finally {
            consumers.shutdownNow();
        }
        assertThat(seen).hasSize(jobs);
        assertThat(seen.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        assertThat(acked.get()).isEqualTo(jobs);
    }

    /**
     * A long poll whose client disconnected while it waited must not be handed the job that falls due: its lease would
     * only expire, costing the job an attempt, while a consumer that is still there waits.
     */
    @Test
    void aLongPollWhoseClientHasGoneIsNotHandedTheJobThatFallsDue() throws Exception {
        try (Socket gone = new Socket("127.0.0.1", APP.getLocalPort())) {
            String body = "{\"waitMs\":20000}";
            gone.getOutputStream().write(("POST /v1/topics/" + topic + "/leases HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.US_ASCII));
            gone.getOutputStream().flush();
            Await.until("the poll is parked", 5_000, () -> parked() == 1);
        } // the client goes away without a word, as a killed worker does
        Thread.sleep(200);

        CompletableFuture<HttpResponse<String>> present = postAsync("/v1/topics/" + topic + "/leases",
                "{\"waitMs\":5000}");
        Await.until("the second poll is parked", 5_000, () -> parked() >= 1 && parked() <= 2);
        Thread.sleep(200);
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 3));

        HttpResponse<String> response = present.get(10, TimeUnit.SECONDS);
        JsonNode leases = JSON.readTree(response.body()).get("leases");
        assertThat(leases).as("the consumer that is still there gets the job").hasSize(1);
        assertThat(leases.get(0).get("attempt").asInt()).as("no attempt spent on the client that went").isEqualTo(1);
        assertThat(store.find(new JobRef(topic, "j")).orElseThrow().history()).isEmpty();
    }

    @Test
    void pollsOnManyTopicNamesLeaveNothingTrackedOnceAnswered() throws Exception {
        // Topic names are the caller's choice: whatever a poll tracks for its topic must go when the poll is answered.
        int before = trackedTopics();
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String name = "gone-" + UUID.randomUUID();
            polls.add(postAsync("/v1/topics/" + name + "/leases", i % 2 == 0 ? "{}" : "{\"waitMs\":100}"));
        }
        for (CompletableFuture<HttpResponse<String>> poll : polls) {
            assertThat(poll.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }

        Await.until("the polled topics are no longer tracked", () -> trackedTopics() <= before);
    }

    private static int trackedTopics() {
        Object gauge = APP.getEnvironment().metrics().getGauges().get("delayq.consumer.leaseTopicsTracked").getValue();
        return ((Number) gauge).intValue();
    }

    private static int parked() {
        Object gauge = APP.getEnvironment().metrics().getGauges().get("delayq.consumer.parkedLeaseRequests").getValue();
        return ((Number) gauge).intValue();
    }

    @Test
    void aPausedTopicLeasesNothing() throws Exception {
        store.enqueue(NewJob.delayed(topic, "j", "{}", 0, 3));
        store.putSettings(topic, new io.delayq.core.TopicSettings(null, null, null, null, true, null));

        HttpResponse<String> response = post("/v1/topics/" + topic + "/leases", "{\"waitMs\":200}");

        assertThat(JSON.readTree(response.body()).get("leases")).isEmpty();
        assertThat(store.find(new JobRef(topic, "j")).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    }

    private JsonNode leaseOne(String topicName, String body) throws Exception {
        HttpResponse<String> response = post("/v1/topics/" + topicName + "/leases", body);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode leases = JSON.readTree(response.body()).get("leases");
        assertThat(leases).hasSize(1);
        return leases.get(0);
    }

    private static String token(JsonNode lease) {
        return "{\"leaseToken\":\"" + lease.get("leaseToken").asText() + "\"}";
    }

    private String jobPath(String id, String action) {
        return "/v1/topics/" + topic + "/jobs/" + id + "/" + action;
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        return postAsync(path, body).get(30, TimeUnit.SECONDS);
    }

    static CompletableFuture<HttpResponse<String>> postAsync(String path, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + APP.getLocalPort() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }
}
