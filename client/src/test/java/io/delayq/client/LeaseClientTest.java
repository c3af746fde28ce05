package io.delayq.client;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Pulling consumers through the client, against the running service and its delivery engine. */
@ExtendWith(DropwizardExtensionsSupport.class)
class LeaseClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    private DelayqClient client;
    private String topic;

    @BeforeEach
    void setUp() {
        client = TestService.client(APP);
        topic = TestService.topic();
    }

    @Test
    void aLongPollWaitingBeforeThreeJobsFallDueReturnsThemOnTime() throws Exception {
        Instant runAt = Instant.now().plusMillis(800);
        BatchResult scheduled = client.scheduleBatch(topic, List.of(
                JobRequest.builder().id("a").runAt(runAt).payload(Map.of("n", 1)).build(),
                JobRequest.builder().id("b").runAt(runAt).payload(Map.of("n", 2)).build(),
                JobRequest.builder().id("c").runAt(runAt).payload(Map.of("n", 3)).build()));
        assertThat(scheduled.created()).isEqualTo(3);

        CompletableFuture<List<LeasedJob>> poll = client.leaseAsync(topic, 10, Duration.ofSeconds(5), null);
        Thread.sleep(200);
        if (Instant.now().isBefore(runAt.minusMillis(50))) {
            assertThat(poll).as("still waiting before the jobs are due").isNotDone();
        }
        List<LeasedJob> leased = poll.get(10, TimeUnit.SECONDS);
        Instant answeredAt = Instant.now();

        assertThat(leased).extracting(LeasedJob::id).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(answeredAt).isAfterOrEqualTo(runAt.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        assertThat(Duration.between(runAt, answeredAt)).as("within a few hundred ms of due")
                .isLessThan(Duration.ofMillis(750));
        assertThat(leased).allSatisfy(job -> {
            assertThat(job.attempt()).isEqualTo(1);
            assertThat(job.runAt().toEpochMilli()).isEqualTo(runAt.toEpochMilli());
            assertThat(job.leaseDeadline()).isAfter(answeredAt);
            assertThat(job.payload().get("n").asInt()).isBetween(1, 3);
        });
    }

    @Test
    void aSecondAckIsAConflict() {
        client.schedule(topic, JobRequest.builder().id("j").payload("x").build());
        LeasedJob job = client.lease(topic, 1, Duration.ofSeconds(2), null).get(0);

        client.ack(job);

        assertThatThrownBy(() -> client.ack(job))
                .isInstanceOfSatisfying(ConflictException.class, e -> assertThat(e.detail()).contains("lease"));
        assertThat(client.get(topic, "j").state()).isEqualTo("SUCCEEDED");
    }

    @Test
    void anUnackedLeaseComesBackAsAttemptTwoAndItsOldTokenIsRefused() {
        client.schedule(topic, JobRequest.builder().id("j").payload("x").maxAttempts(3).build());
        LeasedJob first = client.lease(topic, 1, Duration.ofSeconds(2), Duration.ofMillis(300)).get(0);

        // The service's delivery engine expires the lease; the long poll is woken when the job is due again.
        List<LeasedJob> again = client.lease(topic, 1, Duration.ofSeconds(5), null);

        assertThat(again).hasSize(1);
        LeasedJob second = again.get(0);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(List.of(first.leaseToken(), second.leaseToken())).as("128 bits as base64url, carried unchanged")
                .allMatch(token -> token.matches("[A-Za-z0-9_-]{22}"));
        assertThat(second.leaseToken()).isNotEqualTo(first.leaseToken());
        assertThatThrownBy(() -> client.ack(first)).isInstanceOf(ConflictException.class);
        assertThatThrownBy(() -> client.extend(first, Duration.ofSeconds(10))).isInstanceOf(ConflictException.class);
        assertThatThrownBy(() -> client.nack(first, "late")).isInstanceOf(ConflictException.class);
        client.ack(second);
        assertThat(client.get(topic, "j").state()).isEqualTo("SUCCEEDED");
    }

    @Test
    void nackWithADelayPutsTheJobBackNoEarlierThanThat() {
        client.schedule(topic, JobRequest.builder().id("j").payload("x").build());
        LeasedJob first = client.lease(topic, 1, Duration.ofSeconds(2), null).get(0);
        Instant nackedAt = Instant.now();

        client.nack(first, Duration.ofMillis(600), "not yet");
        List<LeasedJob> again = client.lease(topic, 1, Duration.ofSeconds(5), null);

        assertThat(Duration.between(nackedAt, Instant.now())).isGreaterThanOrEqualTo(Duration.ofMillis(600));
        assertThat(again).singleElement().satisfies(job -> assertThat(job.attempt()).isEqualTo(2));
        assertThat(client.get(topic, "j").lastError()).isEqualTo("not yet");
    }

    @Test
    void nackWithoutDelayOnTheLastAttemptMakesTheJobDead() {
        client.schedule(topic, JobRequest.builder().id("j").payload("x").maxAttempts(1).build());
        LeasedJob job = client.lease(topic, 1, Duration.ofSeconds(2), null).get(0);

        client.nack(job, "broken payload");

        JobInfo dead = client.get(topic, "j");
        assertThat(dead.state()).isEqualTo("DEAD");
        assertThat(dead.lastError()).isEqualTo("broken payload");
    }

    @Test
    void extendKeepsTheLease() throws Exception {
        client.schedule(topic, JobRequest.builder().id("j").payload("x").build());
        LeasedJob job = client.lease(topic, 1, Duration.ofSeconds(2), Duration.ofMillis(400)).get(0);

        Instant deadline = client.extend(job, Duration.ofSeconds(30));
        Thread.sleep(800);

        assertThat(deadline).isAfter(job.leaseDeadline().plusSeconds(20));
        assertThat(client.lease(topic, 1, Duration.ZERO, null)).isEmpty();
        client.ack(job);
    }

    @Test
    void anEmptyPollEndsAfterItsWait() {
        long start = System.nanoTime();

        List<LeasedJob> none = client.lease(topic, 5, Duration.ofMillis(300), null);

        assertThat(none).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void pushJobsAreNotLeased() {
        client.schedule(topic, JobRequest.builder().id("push").delay(Duration.ofHours(1))
                .callback("http://127.0.0.1:1/never").payload("x").build());

        assertThat(client.lease(topic, 10, Duration.ZERO, null)).isEmpty();
        assertThat(client.get(topic, "push").delivery()).isEqualTo("PUSH");
    }
}
