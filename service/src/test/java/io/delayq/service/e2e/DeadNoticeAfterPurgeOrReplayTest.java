package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.testing.Await;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import static io.delayq.service.support.TestApps.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, finding 19: a dead notice whose letter is replayed or purged while the notice waits for its next attempt
 * (its first one failed) is not sent again: the replayed letter's notice is settled (FAILED, saying why) rather than
 * sent, and a purged letter's is never sent. The notice target answers 500 to its first attempt; the retry is due
 * 2 s later, and the operator acts in between. Runs on both stores (and so on the MongoDB and PostgreSQL archives).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class DeadNoticeAfterPurgeOrReplayTest {
    private static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("deadNotices.maxAttempts", "5"),
            ConfigOverride.config("deadNotices.initialBackoff", "2s"),
            ConfigOverride.config("deadNotices.maxBackoff", "2s"),
            ConfigOverride.config("deadNotices.timeout", "2s"),
            ConfigOverride.config("deadNotices.pollInterval", "100ms"));
    /** Paths under /fail answer 500, the others 200. */
    private static final CallbackReceiver RECEIVER = new CallbackReceiver();

    private Api admin;
    private String topic;

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @BeforeEach
    void setUp() {
        admin = TestApps.api(APP).as(ADMIN);
        topic = TestApps.topic();
    }

    @Test
    void aReplayedLettersPendingNoticeIsNotSentAgain() {
        String key = deadWithOneFailedNotice("replayed");
        Answer replay = admin.post("/v1/admin/dead-letters/" + topic + "/replayed/replay", """
                {"callback": {"url": "%s"}}""".formatted(RECEIVER.url("/ok/jobs/" + topic)));
        assertThat(replay.status()).as(replay.toString()).isEqualTo(201);

        Await.until("the replayed letter's notice is settled", Duration.ofSeconds(20),
                () -> !"PENDING".equals(letter("replayed", key).path("notice").path("state").asText()));
        Await.sleep(3_000); // past the retry's due time (2 s after the failed attempt)

        assertThat(noticesOf(key)).as("notices of the replayed letter").hasSize(1);
        JsonNode notice = letter("replayed", key).path("notice");
        assertThat(notice.path("state").asText()).isEqualTo("FAILED");
        assertThat(notice.path("lastError").asText()).contains("replayed");
    }

    @Test
    void aPurgedLettersPendingNoticeIsNotSentAgain() {
        String key = deadWithOneFailedNotice("purged");
        assertThat(admin.delete("/v1/admin/dead-letters/" + topic + "/purged").status()).isEqualTo(204);

        Await.sleep(4_000); // past the retry's due time, twice over

        assertThat(noticesOf(key)).as("notices of the purged letter").hasSize(1);
    }

    /** A job that dies at once, whose notice's first attempt (to a target answering 500) failed; its letter's key. */
    private String deadWithOneFailedNotice(String id) {
        Answer created = admin.post("/v1/topics/" + topic + "/jobs", """
                {"id": "%s", "payload": {"n": 1}, "maxAttempts": 1, "callback": {"url": "%s"},
                 "onDead": {"url": "%s"}}""".formatted(id, RECEIVER.url("/fail/jobs/" + topic),
                RECEIVER.url("/fail/notices/" + topic)));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        Await.until("the first notice of " + id + " failed", Duration.ofSeconds(30),
                () -> deadLetter(id).path("notice").path("attempts").asInt() == 1
                        && deadLetter(id).path("notice").has("lastError"));
        String key = deadLetter(id).path("key").asText();
        assertThat(noticesOf(key)).hasSize(1);
        return key;
    }

    private JsonNode deadLetter(String id) {
        Answer answer = admin.get("/v1/admin/dead-letters/" + topic + "/" + id);
        return answer.status() == 200 ? answer.json() : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    /** The letter of {@code id} with that key (a replay may have left a newer one of the same id). */
    private JsonNode letter(String id, String key) {
        Answer answer = admin.get("/v1/admin/dead-letters?topic=" + topic + "&idPrefix=" + id);
        for (JsonNode item : answer.json().path("items")) {
            if (key.equals(item.path("key").asText())) {
                return item;
            }
        }
        throw new AssertionError("no dead letter " + key + " in " + answer);
    }

    /** The dead notices the receiver got for the dead letter with that key. */
    private List<Received> noticesOf(String key) {
        return RECEIVER.received(r -> "dead".equals(r.header("Delayq-Event")) && topic.equals(r.topic())
                && key.equals(json(r).path("deadLetter").asText()));
    }

    private static JsonNode json(Received r) {
        try {
            return new ObjectMapper().readTree(r.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
