package io.delayq.client;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Dead letters through the client: browse, replay (idempotently), purge. */
@ExtendWith(DropwizardExtensionsSupport.class)
class DeadLetterClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    private DelayqClient client;
    private String topic;

    @BeforeEach
    void setUp() {
        client = TestService.client(APP);
        topic = TestService.topic();
        boolean served;
        try {
            client.deadLetters(DeadLetterQuery.topic(topic).limit(1));
            served = true;
        } catch (NotFoundException e) {
            served = false;
        }
        assumeTrue(served, "the service does not serve /v1/admin/dead-letters (no archive wired)");
    }

    @Test
    void browsesReplaysAndPurgesADeadLetter() throws Exception {
        DeadLetter dead = kill("j", "{\"bad\":true}");
        assertThat(dead.topic()).isEqualTo(topic);
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastError()).isEqualTo("cannot parse");
        assertThat(dead.job().payload().get("bad").asBoolean()).isTrue();
        DeadLetterPage page = client.deadLetters(DeadLetterQuery.topic(topic).limit(10));
        assertThat(page.items()).extracting(DeadLetter::id).containsExactly("j");
        assertThat(page.hasNext()).isFalse();

        ReplayResult replay = client.replayDeadLetter(topic, "j", null, "ticket-1");
        ReplayResult again = client.replayDeadLetter(topic, "j", null, "ticket-1");

        assertThat(replay.duplicate()).isFalse();
        assertThat(again.duplicate()).isTrue();
        assertThat(again.replay().newJobId()).isEqualTo(replay.replay().newJobId());
        LeasedJob fresh = client.lease(topic, 1, Duration.ofSeconds(5), null).get(0);
        assertThat(fresh.id()).isEqualTo(replay.replay().newJobId());
        assertThat(fresh.attempt()).isEqualTo(1);
        client.ack(fresh);
        assertThat(client.deadLetter(topic, "j").replayCount()).isEqualTo(1);

        client.purgeDeadLetter(topic, "j");
        assertThatThrownBy(() -> client.deadLetter(topic, "j")).isInstanceOf(NotFoundException.class);
    }

    @Test
    void replaysAndPurgesByFilter() throws Exception {
        kill("a", "1");
        kill("b", "2");

        assertThatThrownBy(() -> client.purgeDeadLetters(DeadLetterFilter.topic(topic).expectedCount(1)))
                .as("two match, one was confirmed").isInstanceOf(ConflictException.class);
        BulkReplayResult first = client.replayDeadLetters(DeadLetterFilter.topic(topic).max(1));
        BulkReplayResult replayed = client.replayDeadLetters(DeadLetterFilter.topic(topic).max(10)
                .cursor(first.nextCursor()));
        BulkReplayResult repeated = client.replayDeadLetters(DeadLetterFilter.topic(topic).max(10));
        long purged = client.purgeDeadLetters(DeadLetterFilter.topic(topic));

        assertThat(first.replayed()).isEqualTo(1);
        assertThat(first.more()).isTrue();
        assertThat(first.nextCursor()).isNotNull();
        assertThat(replayed.replayed()).as("the other one, after the cursor").isEqualTo(1);
        assertThat(replayed.failed()).isZero();
        assertThat(replayed.failures()).isEmpty();
        assertThat(replayed.more()).isFalse();
        assertThat(repeated.replayed()).isZero();
        assertThat(purged).isEqualTo(2);
        assertThat(client.lease(topic, 10, Duration.ofSeconds(2), null)).hasSize(2);
        assertThatThrownBy(() -> client.purgeDeadLetters(DeadLetterFilter.all()))
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void purgesByFilterInTheBackground() throws Exception {
        kill("a", "1");
        kill("b", "2");
        // replayed(false) goes into the JSON filter as a boolean (the service takes no "false" string there)
        DeadLetterOperation purge = DeadLetterOperation.purge(DeadLetterQuery.topic(topic).replayed(false).limit(5));

        long matching = client.countDeadLetters(purge);
        assertThatThrownBy(() -> client.startDeadLetterOperation(purge, 1))
                .as("two match, one was confirmed").isInstanceOf(ConflictException.class);
        BulkOperationInfo op = client.startDeadLetterOperation(purge, matching);
        BulkOperationInfo[] now = {op};
        Await.until("the purge finishes", Duration.ofSeconds(15), () -> (now[0] = client.bulkOperation(op.id())).finished());

        assertThat(matching).isEqualTo(2);
        assertThat(op.target()).isEqualTo("dead-letters");
        assertThat(op.kind()).isEqualTo("purge");
        assertThat(now[0].state()).isEqualTo("done");
        assertThat(now[0].done()).isEqualTo(2);
        assertThat(client.deadLetters(DeadLetterQuery.topic(topic)).items()).isEmpty();
    }

    /**
     * "." and ".." are steps of a URL path: {@code URI.resolve} would turn the replay of letter ".." into
     * {@code POST /v1/admin/dead-letters/replay}, a bulk replay of every topic. The client refuses to build such a URL
     * and sends nothing.
     */
    @Test
    void aNameMadeOnlyOfDotsIsRefusedBeforeAnyRequestIsSent() throws Exception {
        kill("bystander", "{}");
        for (String name : List.of(".", "..", "...")) {
            assertThatThrownBy(() -> client.deadLetter(topic, name)).as("deadLetter %s", name)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only of dots");
            assertThatThrownBy(() -> client.get(name, "j")).as("get topic %s", name)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only of dots");
            assertThatThrownBy(() -> client.replayDeadLetter(topic, name)).as("replay %s", name)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.purgeDeadLetter(topic, name)).as("purge %s", name)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.cancel(topic, name)).as("cancel %s", name)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(client.deadLetter(topic, "bystander").replayCount()).as("nothing was replayed").isZero();
    }

    /** Schedules a pull job with one attempt, fails it, and waits for the archive to have it. */
    private DeadLetter kill(String id, String payloadJson) throws Exception {
        client.schedule(topic, JobRequest.builder().id(id).payload(Json.DEFAULT.readTree(payloadJson)).maxAttempts(1).build());
        LeasedJob job = client.lease(topic, 1, Duration.ofSeconds(5), null).get(0);
        client.nack(job, "cannot parse");
        DeadLetter[] found = new DeadLetter[1];
        Await.until("the archive has the dead letter " + id, Duration.ofSeconds(15), () -> {
            Optional<DeadLetter> letter = find(id);
            letter.ifPresent(l -> found[0] = l);
            return letter.isPresent();
        });
        return found[0];
    }

    private Optional<DeadLetter> find(String id) {
        try {
            return Optional.of(client.deadLetter(topic, id));
        } catch (NotFoundException e) {
            return Optional.empty();
        }
    }
}
