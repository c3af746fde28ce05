package io.delayq.service.delivery;

import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.NewJob;
import io.delayq.core.testing.Await;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.service.support.TestStores;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service never calls itself (issue 26, finding 11): with the default {@code allowPrivateNetworks: true}, a
 * callback, a topic's default callback or an {@code onDead} target on the service's own API or admin port (the
 * admin port has unauthenticated tasks such as {@code POST /tasks/log-level?level=OFF}) is refused when it is given,
 * by address literal, by a name that resolves to this host, or by another of this host's addresses; and a job that
 * reached the store anyway (written before the rule, here straight into the test Redis) is refused at delivery.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SelfTargetTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    @Test
    void callbacksAndNoticeTargetsOnTheServicesOwnPortsAreRefusedWhenGiven() {
        Api api = TestApps.api(APP);
        Api admin = api.as(TestApps.ADMIN);
        String topic = TestApps.topic();
        List<String> targets = new ArrayList<>();
        for (int port : List.of(APP.getAdminPort(), APP.getLocalPort())) {
            targets.add("http://127.0.0.1:" + port + "/tasks/log-level?level=OFF");
            targets.add("http://localhost:" + port + "/tasks/gc");
            targets.add("http://[::1]:" + port + "/tasks/gc");
            targets.add("http://127.0.0.2:" + port + "/tasks/gc");
            otherLocalAddress().ifPresent(a -> targets.add("http://" + a + ":" + port + "/tasks/gc"));
        }
        for (String target : targets) {
            Answer job = api.post("/v1/topics/" + topic + "/jobs", """
                    {"id": "self", "payload": {}, "callback": {"url": "%s"}}""".formatted(target));
            assertRefused(job, target, "callback");
            Answer notice = api.post("/v1/topics/" + topic + "/jobs", """
                    {"id": "self", "payload": {}, "onDead": {"url": "%s"}}""".formatted(target));
            assertRefused(notice, target, "onDead");
            Answer topicDefault = admin.put("/v1/topics/" + topic, """
                    {"callback": {"url": "%s"}, "maxAttempts": 3}""".formatted(target));
            assertRefused(topicDefault, target, "callback");
        }
        assertThat(api.get("/v1/topics/" + topic + "/jobs/self").status()).as("nothing stored").isEqualTo(404);
        assertThat(api.get("/v1/topics/" + topic).json().path("settings").has("maxAttempts"))
                .as("no setting changed").isFalse();
    }

    @Test
    void aJobOnAnOwnPortThatReachedTheStoreIsRefusedAtDeliveryAfterTheNameIsResolved() {
        Assumptions.assumeTrue(TestStores.selected() == TestStores.REDIS, "writes the job into the test Redis itself");
        int adminPort = APP.getAdminPort();
        String topic = TestApps.topic();
        try (RedisJobStore store = RedisJobStore.connect(TestRedis.sharedUri())) {
            // As a job written before this rule existed, or by an instance that did not know the port.
            store.enqueue(new NewJob(topic, "named", "{}", 0L, null, 1, null,
                    Callback.of("http://localhost:" + adminPort + "/tasks/gc"), null, false, Delivery.PUSH));
            store.enqueue(new NewJob(topic, "literal", "{}", 0L, null, 1, null,
                    Callback.of("http://127.0.0.1:" + adminPort + "/tasks/log-level?level=OFF"), null, false,
                    Delivery.PUSH));
            for (String id : List.of("named", "literal")) {
                JobRef ref = new JobRef(topic, id);
                Await.until(id + " attempted", 10_000, () -> store.find(ref).map(Job::state)
                        .filter(s -> s == JobState.DEAD || s == JobState.SUCCEEDED).isPresent());
                Job job = store.find(ref).orElseThrow();
                assertThat(job.state()).as("%s: %s", id, job.lastError()).isEqualTo(JobState.DEAD);
                assertThat(job.lastError()).as(id).contains("delayq's own").contains(String.valueOf(adminPort));
            }
        }
    }

    private static void assertRefused(Answer answer, String target, String field) {
        assertThat(answer.status()).as("%s as %s: %s", target, field, answer).isEqualTo(422);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).as(target).contains(field).contains("delayq's own");
    }

    /** A non-loopback IPv4 address of this host, if it has one. */
    private static Optional<String> otherLocalAddress() {
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (address instanceof Inet4Address && !address.isLoopbackAddress()
                            && !address.isLinkLocalAddress()) {
                        return Optional.of(address.getHostAddress());
                    }
                }
            }
        } catch (SocketException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
