package io.delayq.service.deadletters;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;

import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.service.support.TestApps.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded default's promise: a dead letter is still listed, with its attempts, after the service was stopped and
 * started again on the same data directory (the archive file-backed, the job store shared by both runs).
 */
@Tag("both-stores")
class DeadLetterRestartTest {
    @TempDir
    Path data;

    @Test
    void aDeadLetterOutlivesARestartOfTheService() throws Exception {
        String topic = newTopic();
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort(); // nothing listens here once the socket is closed: every attempt fails
        }
        String job = "{\"id\":\"lost-cause\",\"payload\":{\"n\":1},\"maxAttempts\":2,"
                + "\"backoff\":{\"type\":\"schedule\",\"delays\":[\"50ms\"]},"
                + "\"callback\":{\"url\":\"http://127.0.0.1:" + closedPort + "/hook\"}}";

        DropwizardTestSupport<DelayqConfiguration> first = service();
        first.before();
        try {
            Api admin = api(first);
            assertThat(admin.post("/v1/topics/" + topic + "/jobs", job).status()).isEqualTo(201);
            Await.until("the dead letter is archived", () -> admin.get("/v1/admin/dead-letters?topic=" + topic)
                    .json().get("items").size() == 1);
        } finally {
            first.after();
        }

        DropwizardTestSupport<DelayqConfiguration> second = service();
        second.before();
        try {
            Api admin = api(second);
            Api.Answer letter = admin.get("/v1/admin/dead-letters/" + topic + "/lost-cause");
            assertThat(letter.status()).as(letter.toString()).isEqualTo(200);
            assertThat(letter.json().get("attempts").asInt()).isEqualTo(2);
            assertThat(letter.json().get("job").get("history")).hasSize(2);
            assertThat(letter.json().get("lastError").asText()).contains("could not connect");
        } finally {
            second.after();
        }
    }

    private DropwizardTestSupport<DelayqConfiguration> service() {
        return TestApps.support(
                ConfigOverride.config("archive.embedded.port", "0"),
                ConfigOverride.config("archive.embedded.persistent", "true"),
                ConfigOverride.config("archive.embedded.dataDir", data.resolve("mongo").toString()));
    }

    private static Api api(DropwizardTestSupport<DelayqConfiguration> app) {
        return new Api("http://127.0.0.1:" + app.getLocalPort(), ADMIN);
    }
}
