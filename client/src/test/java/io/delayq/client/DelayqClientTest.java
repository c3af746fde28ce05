package io.delayq.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The producer and topic side of the client, against the running service. */
@ExtendWith(DropwizardExtensionsSupport.class)
class DelayqClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    record Order(int order, String customer) {
    }

    private DelayqClient client;
    private String topic;

    @BeforeEach
    void setUp() {
        client = TestService.client(APP);
        topic = TestService.topic();
    }

    @Test
    void schedulesAndReadsBackAJob() {
        JobInfo job = client.schedule(topic, JobRequest.builder()
                .id("order-42")
                .delay(Duration.ofMinutes(30))
                .payload(new Order(42, "ada"))
                .maxAttempts(4)
                .backoff(Backoff.schedule(Duration.ofSeconds(15), Duration.ofMinutes(3)))
                .timeout(Duration.ofSeconds(45))
                .build());

        assertThat(job.id()).isEqualTo("order-42");
        assertThat(job.state()).isEqualTo("SCHEDULED");
        assertThat(job.runAt()).isAfter(Instant.now().plus(Duration.ofMinutes(29)));
        assertThat(job.maxAttempts()).isEqualTo(4);
        assertThat(job.timeoutMs()).isEqualTo(45_000L);
        assertThat(job.backoff().get("type").asText()).isEqualTo("schedule");
        JobInfo read = client.get(topic, "order-42");
        assertThat(read.payloadAs(Order.class)).isEqualTo(new Order(42, "ada"));
        assertThat(read.delivery()).isEqualTo("PULL");
    }

    @Test
    void theSameJobTwiceIsIdempotentAndOtherContentUnderItsIdConflicts() {
        JobRequest request = JobRequest.builder().id("once").delay(Duration.ofHours(1)).payload(Map.of("a", 1)).build();
        JobInfo first = client.schedule(topic, request);
        JobInfo again = client.schedule(topic, request);

        assertThat(again.createdAt()).isEqualTo(first.createdAt());
        assertThatThrownBy(() -> client.schedule(topic,
                JobRequest.builder().id("once").delay(Duration.ofHours(1)).payload(Map.of("a", 2)).build()))
                .isInstanceOfSatisfying(ConflictException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.detail()).contains("once");
                });
    }

    @Test
    void generatesAnIdWhenNoneIsGiven() {
        JobInfo job = client.schedule(topic, JobRequest.of("plain text"));

        assertThat(job.id()).isNotBlank();
        assertThat(job.payload().asText()).isEqualTo("plain text");
    }

    @Test
    void cancelsAndReschedules() {
        client.schedule(topic, JobRequest.builder().id("c").delay(Duration.ofHours(1)).payload(1).build());
        client.schedule(topic, JobRequest.builder().id("r").delay(Duration.ofHours(1)).payload(2).build());

        client.cancel(topic, "c");
        Instant at = Instant.now().plus(Duration.ofDays(2));
        JobInfo moved = client.reschedule(topic, "r", at);
        JobInfo sooner = client.reschedule(topic, "r", Duration.ofMinutes(5));

        assertThat(client.get(topic, "c").state()).isEqualTo("CANCELLED");
        assertThat(moved.runAt().toEpochMilli()).isEqualTo(at.toEpochMilli());
        assertThat(sooner.runAt()).isBefore(at.minus(Duration.ofDays(1)));
    }

    @Test
    void schedulesABatch() {
        BatchResult result = client.scheduleBatch(topic, List.of(
                JobRequest.builder().id("b1").delay(Duration.ofHours(1)).payload(1).build(),
                JobRequest.builder().id("b2").delay(Duration.ofHours(1)).payload(2).build(),
                JobRequest.builder().id("bad id!").payload(3).build()));

        assertThat(result.created()).isEqualTo(2);
        assertThat(result.failed()).isEqualTo(1);
        assertThat(result.items()).extracting(BatchResult.Item::ok).containsExactly(true, true, false);
        assertThat(result.items().get(2).error().get("detail").asText()).contains("bad id!");
    }

    @Test
    void refusalsAreTypedFromProblemJson() {
        assertThatThrownBy(() -> client.get(topic, "missing"))
                .isInstanceOfSatisfying(NotFoundException.class, e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.title()).isNotBlank();
                    assertThat(e.problem().get("status").asInt()).isEqualTo(404);
                });
        assertThat(client.find(topic, "missing")).isEmpty();
        assertThatThrownBy(() -> client.schedule(topic, JobRequest.builder().delay(Duration.ofDays(400)).payload(1).build()))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.detail()).contains("maxDelay"));
        assertThatThrownBy(() -> TestService.client(APP, "wrong-token").get(topic, "x"))
                .isInstanceOfSatisfying(UnauthorizedException.class, e -> assertThat(e.status()).isEqualTo(401));
        assertThatThrownBy(() -> TestService.client(APP, TestService.PRODUCER_ONLY).lease(topic, 1, null, null))
                .isInstanceOfSatisfying(UnauthorizedException.class, e -> assertThat(e.status()).isEqualTo(403));
        assertThatThrownBy(() -> DelayqClient.builder().baseUri("http://127.0.0.1:1").build().get(topic, "x"))
                .isInstanceOfSatisfying(DelayqException.class, e -> assertThat(e.status()).isZero());
    }

    @Test
    void readsAndChangesTopicSettings() {
        client.schedule(topic, JobRequest.builder().delay(Duration.ofHours(1)).payload(1).build());

        TopicInfo changed = client.updateTopic(topic, TopicSettingsUpdate.create()
                .maxAttempts(3).timeout(Duration.ofSeconds(20)).paused(true));
        TopicInfo read = client.topic(topic);
        TopicInfo resumed = client.updateTopic(topic, TopicSettingsUpdate.create().paused(false).reset("maxAttempts"));

        assertThat(changed.settings().maxAttempts()).isEqualTo(3);
        assertThat(changed.settings().paused()).isTrue();
        assertThat(read.scheduled()).isEqualTo(1);
        assertThat(read.nextRunAt()).isAfter(Instant.now());
        assertThat(resumed.settings().paused()).isFalse();
        assertThat(resumed.settings().maxAttempts()).isNull();
        assertThat(client.topics()).extracting(TopicInfo::topic).contains(topic);
    }

    @Test
    void writesJsonNodePayloadsVerbatim() throws Exception {
        JsonNode payload = Json.DEFAULT.readTree("{\"nested\":{\"list\":[1,2.5,\"x\",null,true]}}");

        JobInfo job = client.schedule(topic, JobRequest.builder().delay(Duration.ofHours(1)).payload(payload).build());

        assertThat(job.payload()).isEqualTo(payload);
    }
}
