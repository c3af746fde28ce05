package io.delayq.service.jobs;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A payload reaches its callback as the producer wrote it, compacted: numbers keep their exact text whatever their
 * size or precision, nothing is rounded through a double.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PayloadVerbatimTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    static final CallbackReceiver RECEIVER = new CallbackReceiver();

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @Test
    void numbersArriveWithTheirExactText() {
        String topic = TestApps.topic();
        Api api = TestApps.api(APP);
        String payload = "{\"huge\":1e400,\"tiny\":-2.5E-400,\"precise\":0.1000000000000000055511151231257827,"
                + "\"big\":123456789012345678901234567890,\"trailing\":1.50,\"plain\":[1,2.0,-0,\"1e400\"],"
                + "\"text\":\"caf\u00e9 \\u2028 \\\"q\\\"\"}";
        Answer created = api.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"exact\",\"payload\": "
                + payload.replace(",", ", ") + ", \"callback\":{\"url\":\"" + RECEIVER.url("/exact/" + topic) + "\"}}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(created.raw().body()).contains("\"payload\":{\"huge\":1e400,\"tiny\":-2.5E-400,"
                + "\"precise\":0.1000000000000000055511151231257827,\"big\":123456789012345678901234567890,"
                + "\"trailing\":1.50,\"plain\":[1,2.0,-0,\"1e400\"]");

        List<Received> got = RECEIVER.await(r -> r.path().equals("/exact/" + topic), 1, Duration.ofSeconds(15));
        assertThat(got).hasSize(1);
        assertThat(got.get(0).bodyText()).startsWith("{\"huge\":1e400,\"tiny\":-2.5E-400,"
                + "\"precise\":0.1000000000000000055511151231257827,\"big\":123456789012345678901234567890,"
                + "\"trailing\":1.50,\"plain\":[1,2.0,-0,\"1e400\"],\"text\":\"caf\u00e9 ");
        assertThat(api.get("/v1/topics/" + topic + "/jobs/exact").raw().body()).contains("\"huge\":1e400");
    }
}
