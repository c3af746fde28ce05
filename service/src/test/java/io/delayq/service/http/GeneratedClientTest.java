package io.delayq.service.http;

import io.delayq.core.testing.Await;
import io.delayq.generated.ApiClient;
import io.delayq.generated.ApiException;
import io.delayq.generated.api.JobsApi;
import io.delayq.generated.model.Callback;
import io.delayq.generated.model.Job;
import io.delayq.generated.model.ScheduleJobRequest;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.util.Map;

import static io.delayq.core.testing.StoreFixtures.newTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Java client generated from openapi.yaml by openapi-generator (service/pom.xml, generate-test-sources) schedules a
 * job against the running service, reads it back, sees it delivered to a real receiver, and gets the documented
 * problem for a bad request: the document describes the API well enough for another tool to drive it.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class GeneratedClientTest {
    private static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    private static final CallbackReceiver RECEIVER = new CallbackReceiver();

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    private static JobsApi jobs() {
        ApiClient client = new ApiClient();
        client.updateBaseUri("http://127.0.0.1:" + APP.getLocalPort());
        client.setRequestInterceptor(b -> b.header("Authorization", "Bearer " + TestApps.PRODUCER));
        return new JobsApi(client);
    }

    @Test
    void schedulesReadsAndSeesAJobDelivered() throws Exception {
        String topic = newTopic();
        Job created = jobs().scheduleJob(topic, new ScheduleJobRequest()
                .id("generated-1")
                .payload(Map.of("orderId", 42))
                .delayMs(200)
                .callback(new Callback().url(URI.create(RECEIVER.url("/hook")))),
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null);
        assertThat(created.getId()).isEqualTo("generated-1");
        assertThat(created.getTraceparent()).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(created.getTopic()).isEqualTo(topic);

        Job read = jobs().getJob(topic, "generated-1");
        assertThat(read.getId()).isEqualTo("generated-1");
        assertThat(read.getPayload()).isEqualTo(Map.of("orderId", 42));

        Await.until("the job reaches the receiver", () -> RECEIVER.received().stream()
                .anyMatch(r -> topic.equals(r.topic()) && "generated-1".equals(r.id())));
        Await.until("the job reads as succeeded", () -> {
            try {
                return "SUCCEEDED".equals(String.valueOf(jobs().getJob(topic, "generated-1").getState()));
            } catch (ApiException e) {
                return false;
            }
        });
    }

    @Test
    void aBadRequestIsTheDocumentedProblem() {
        assertThatThrownBy(() -> jobs().scheduleJob("bad topic!", new ScheduleJobRequest().payload(Map.of()), null, null))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getResponseBody()).contains("topic");
                });
    }
}
