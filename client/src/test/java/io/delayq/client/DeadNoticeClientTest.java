package io.delayq.client;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * The client's side of dead notices against the running service: a job's and a topic's {@code onDead},
 * {@link LeasedJob#isLastAttempt()}, a {@link Worker}'s {@link DeadHandler} called when its own failure made the job
 * dead (and not for a {@link Retry}), the notice reaching a real receiver, and the dead letter recording it.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class DeadNoticeClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    private static final String SECRET = "client-test-secret"; // client-test-config.yml

    private final List<Worker> workers = new ArrayList<>();
    private DelayqClient client;
    private String topic;

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @BeforeEach
    void setUp() {
        client = TestService.client(APP);
        topic = TestService.topic();
    }

    @AfterEach
    void closeWorkers() {
        workers.forEach(Worker::close);
    }

    /** One call of the worker's onDead handler. */
    private record Death(LeasedJob job, Throwable error) {
    }

    @Test
    void aWorkerWhoseHandlerFailsTheLastAttemptCallsOnDeadAndTheServiceSendsTheNotice() {
        client.schedule(topic, JobRequest.builder().id("doomed").payload(Map.of("order", 42)).maxAttempts(2)
                .backoff(Backoff.schedule(Duration.ofMillis(50)))
                .onDead(new Callback(RECEIVER.url("/notices/" + topic), Map.of("X-Hook-Key", "k1"))).build());
        List<LeasedJob> seen = new CopyOnWriteArrayList<>();
        List<Death> deaths = new CopyOnWriteArrayList<>();
        Worker worker = Worker.builder(client, topic).pollWait(Duration.ofSeconds(1))
                .handler(job -> {
                    seen.add(job);
                    throw new IllegalStateException("payment service said no");
                })
                .onDead((job, error) -> deaths.add(new Death(job, error)))
                .build().start();
        workers.add(worker);

        Await.until("the worker's onDead handler runs", () -> !deaths.isEmpty());
        Await.until("the dead notice arrives", () -> !notices("doomed").isEmpty());

        assertThat(seen).extracting(LeasedJob::attempt, LeasedJob::maxAttempts, LeasedJob::isLastAttempt)
                .containsExactly(tuple(1, 2, false), tuple(2, 2, true));
        assertThat(deaths).hasSize(1);
        assertThat(deaths.get(0).job().attempt()).isEqualTo(2);
        assertThat(deaths.get(0).error()).isInstanceOf(IllegalStateException.class)
                .hasMessage("payment service said no");
        assertThat(worker.dead()).isEqualTo(1);

        Received notice = notices("doomed").get(0);
        assertThat(SignatureVerifier.of(SECRET).verifyDeadNotice(notice::header, notice.body()).id())
                .isEqualTo("doomed");
        assertThat(notice.header("X-Hook-Key")).isEqualTo("k1");
        assertThat(notice.bodyText()).contains("\"lastError\":\"IllegalStateException: payment service said no\"")
                .contains("\"payload\":{\"order\":42}");

        Await.until("the dead letter records the notice delivered",
                () -> client.deadLetter(topic, "doomed").notice() != null
                        && client.deadLetter(topic, "doomed").notice().isDelivered());
        DeadLetter letter = client.deadLetter(topic, "doomed");
        assertThat(letter.notice().attempts()).isEqualTo(1);
        assertThat(letter.notice().deliveredAt()).isNotNull();
        assertThat(letter.job().onDead().url()).isEqualTo(RECEIVER.url("/notices/" + topic));
        assertThat(notices("doomed")).hasSize(1);
    }

    @Test
    void aRetryOnTheLastAttemptEndsTheJobTooAndCallsOnDead() {
        client.schedule(topic, JobRequest.builder().id("later").payload(Map.of()).maxAttempts(1).build());
        List<Death> deaths = new CopyOnWriteArrayList<>();
        Worker worker = Worker.builder(client, topic).pollWait(Duration.ofSeconds(1))
                .handler(job -> {
                    throw Retry.in(Duration.ofMillis(100), "not yet");
                })
                .onDead((job, error) -> deaths.add(new Death(job, error)))
                .build().start();
        workers.add(worker);

        Await.until("the worker's onDead handler runs", () -> !deaths.isEmpty());

        assertThat(deaths.get(0).job().isLastAttempt()).isTrue();
        assertThat(deaths.get(0).error()).isInstanceOf(Retry.class).hasMessage("not yet");
        assertThat(client.get(topic, "later").state()).isEqualTo("DEAD");
        assertThat(client.get(topic, "later").lastError()).isEqualTo("not yet");
    }

    @Test
    void aFailureBeforeTheLastAttemptIsNoDeath() {
        client.schedule(topic, JobRequest.builder().id("second-time").payload(Map.of()).maxAttempts(2)
                .backoff(Backoff.schedule(Duration.ofMillis(50))).onDead(RECEIVER.url("/notices/" + topic)).build());
        List<Death> deaths = new CopyOnWriteArrayList<>();
        List<LeasedJob> seen = new CopyOnWriteArrayList<>();
        Worker worker = Worker.builder(client, topic).pollWait(Duration.ofSeconds(1))
                .handler(job -> {
                    seen.add(job);
                    if (!job.isLastAttempt()) {
                        throw new IllegalStateException("flaky");
                    }
                })
                .onDead((job, error) -> deaths.add(new Death(job, error)))
                .build().start();
        workers.add(worker);

        Await.until("the job is acked on its second attempt", () -> worker.acked() == 1);

        assertThat(seen).extracting(LeasedJob::attempt).containsExactly(1, 2);
        assertThat(deaths).isEmpty();
        assertThat(worker.dead()).isZero();
        assertThat(client.get(topic, "second-time").state()).isEqualTo("SUCCEEDED");
        assertThat(notices("second-time")).isEmpty();
    }

    @Test
    void topicSettingsCarryOnDeadAndTheOtherDeliveryProtections() {
        TopicInfo updated = client.updateTopic(topic, TopicSettingsUpdate.create()
                .onDead(Callback.of(RECEIVER.url("/topic-notices/" + topic)))
                .asyncAckTimeout(Duration.ofMinutes(2))
                .asyncAck(true)
                .errorBodies(true)
                .breaker(Breaker.create().failureThreshold(7).probeInterval(Duration.ofSeconds(10))));

        TopicSettings settings = client.topic(topic).settings();
        assertThat(updated.settings()).isEqualTo(settings);
        assertThat(settings.onDead().url()).isEqualTo(RECEIVER.url("/topic-notices/" + topic));
        assertThat(settings.asyncAckTimeout()).isNotNull();
        assertThat(settings.asyncAck()).isTrue();
        assertThat(settings.errorBodies()).isTrue();
        assertThat(settings.breaker().get("failureThreshold").asInt()).isEqualTo(7);

        client.updateTopic(topic, TopicSettingsUpdate.create().reset("onDead").reset("asyncAck").breaker(Breaker.off()));
        TopicSettings reset = client.topic(topic).settings();
        assertThat(reset.onDead()).isNull();
        assertThat(reset.asyncAck()).isNull();
        assertThat(reset.breaker().get("enabled").asBoolean()).isFalse();
    }

    @Test
    void aJobsOwnOnDeadIsShownAndPartOfItsIdentity() {
        JobInfo job = client.schedule(topic, JobRequest.builder().id("j").delay(Duration.ofHours(1)).payload(1)
                .onDead(RECEIVER.url("/notices/" + topic)).build());

        assertThat(job.onDead().url()).isEqualTo(RECEIVER.url("/notices/" + topic));
        assertThat(client.get(topic, "j").onDead()).isEqualTo(job.onDead());
        // the same id with another target is other content: 409
        assertThatThrownBy(() -> client.schedule(topic, JobRequest.builder().id("j")
                        .delay(Duration.ofHours(1)).payload(1).onDead(RECEIVER.url("/elsewhere")).build()))
                .isInstanceOf(ConflictException.class);
    }

    private List<Received> notices(String id) {
        return RECEIVER.received(r -> "dead".equals(r.header("Delayq-Event")) && topic.equals(r.topic())
                && id.equals(r.id()));
    }
}
