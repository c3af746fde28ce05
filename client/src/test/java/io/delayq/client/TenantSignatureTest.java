package io.delayq.client;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import io.delayq.client.SignatureVerifier.InvalidSignatureException;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each tenant's callbacks and dead notices are signed with its own secrets (issue 28), verified the way a receiver
 * verifies them, with {@link SignatureVerifier}, on real requests from the running service: during a rotation (the
 * tenant has two secrets) the one header carries a signature by each, so a receiver with either secret accepts;
 * once the old secret is removed its signature stops. Operators' topics, and a tenant without secrets of its own,
 * are signed with the service's {@code delivery.signingSecret}, and no tenant's secret verifies them. No secret
 * reaches the log.
 */
class TenantSignatureTest {
    private static final String SERVICE_SECRET = "client-test-secret"; // client-test-config.yml
    private static final String OLD = "acme-secret-2026-10-xxxxxxxx";
    private static final String NEW = "acme-secret-2026-11-yyyyyyyy";
    private static final String OTHER = "zeta-never-used-zzzzzzzzzzzz";

    private final CallbackReceiver receiver = new CallbackReceiver();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private DropwizardTestSupport<DelayqConfiguration> service;

    @AfterEach
    void stop() {
        if (service != null) {
            service.after();
        }
        receiver.close();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(log);
    }

    @Test
    void aTenantsSecretsSignItsCallbacksAndNoticesAndARotationSendsBoth(@TempDir Path dir) throws Exception {
        // a rotation under way: the old secret and the new one
        start(dir, List.of(OLD, NEW));
        Requests acme = deliver("acme.orders");
        Requests zeta = deliver("zeta.billing");
        Requests operators = deliver("ops-" + TestService.topic());

        assertThat(acme.callback.header("Delayq-Signature")).matches("t=\\d+,v2=[0-9a-f]{64},v2=[0-9a-f]{64}");
        for (String secret : List.of(OLD, NEW)) {
            assertThat(verifies(secret, acme)).as("acme with %s", secret).isTrue();
        }
        assertThat(verifies(SERVICE_SECRET, acme)).as("acme with the service's secret").isFalse();
        assertThat(verifies(OTHER, acme)).isFalse();
        assertThat(zeta.callback.header("Delayq-Signature")).matches("t=\\d+,v2=[0-9a-f]{64}");
        assertThat(verifies(SERVICE_SECRET, zeta)).as("a tenant without secrets: the service's").isTrue();
        assertThat(verifies(OLD, zeta)).isFalse();
        assertThat(verifies(SERVICE_SECRET, operators)).as("an operators' topic: the service's").isTrue();
        assertThat(verifies(OLD, operators)).isFalse();
        assertThat(verifies(NEW, operators)).isFalse();

        // the rotation is done: the old secret is removed
        service.after();
        start(dir, List.of(NEW));
        Requests after = deliver("acme.orders");

        assertThat(after.callback.header("Delayq-Signature")).matches("t=\\d+,v2=[0-9a-f]{64}");
        assertThat(verifies(NEW, after)).isTrue();
        assertThat(verifies(OLD, after)).as("the removed secret").isFalse();

        List<String> logged = new ArrayList<>();
        for (ILoggingEvent e : log.list) {
            logged.add(e.getFormattedMessage() + (e.getThrowableProxy() == null ? ""
                    : ThrowableProxyUtil.asString(e.getThrowableProxy())));
        }
        assertThat(String.join("\n", logged)).doesNotContain(OLD, NEW, SERVICE_SECRET);
    }

    /** A callback and a dead notice of one topic, as the receiver got them. */
    private record Requests(Received callback, Received notice) {
    }

    /** Verifies both requests with one secret, as a receiver holding only that secret would. */
    private static boolean verifies(String secret, Requests requests) {
        SignatureVerifier verifier = SignatureVerifier.of(secret);
        boolean callback = accepts(() -> verifier.verifyCallback(requests.callback::header, requests.callback.body()));
        boolean notice = accepts(() -> verifier.verifyDeadNotice(requests.notice::header, requests.notice.body()));
        assertThat(notice).as("the notice is signed as the callback is").isEqualTo(callback);
        return callback;
    }

    private static boolean accepts(Runnable verification) {
        try {
            verification.run();
            return true;
        } catch (InvalidSignatureException refused) {
            return false;
        }
    }

    /** Schedules a job that is delivered and one that dies with a dead notice, in the topic; waits for both. */
    private Requests deliver(String topic) {
        DelayqClient client = DelayqClient.builder().baseUri("http://127.0.0.1:" + service.getLocalPort())
                .token(TestService.TOKEN).requestTimeout(Duration.ofSeconds(10)).build();
        String run = TestService.topic();
        client.schedule(topic, JobRequest.builder().id("ok-" + run).payload(Map.of("n", 1))
                .callback(receiver.url("/hooks/" + run)).build());
        client.schedule(topic, JobRequest.builder().id("dies-" + run).payload(Map.of("n", 2)).maxAttempts(1)
                .callback(receiver.url("/fail/" + run)).onDead(receiver.url("/dead/" + run)).build());
        Received callback = receiver.await(r -> r.path().equals("/hooks/" + run), 1, Duration.ofSeconds(20)).get(0);
        Received notice = receiver.await(r -> r.path().equals("/dead/" + run), 1, Duration.ofSeconds(30)).get(0);
        assertThat(callback.topic()).isEqualTo(topic);
        return new Requests(callback, notice);
    }

    /** The client tests' service with tenant acme (topics acme.*) holding {@code acmeSecrets}, and zeta (none). */
    private void start(Path dir, List<String> acmeSecrets) throws Exception {
        StringBuilder tenants = new StringBuilder("\ntenants:\n  - name: acme\n    topics: [\"acme.*\"]\n"
                + "    signingSecrets:\n");
        for (int i = 0; i < acmeSecrets.size(); i++) {
            tenants.append("      - {id: s").append(i).append(", secret: ").append(acmeSecrets.get(i)).append("}\n");
        }
        tenants.append("  - name: zeta\n    topics: [\"zeta.*\"]\n");
        Path config = dir.resolve("tenants-config.yml");
        Files.writeString(config, Files.readString(Path.of(ResourceHelpers.resourceFilePath("client-test-config.yml")))
                + tenants);
        service = new DropwizardTestSupport<>(DelayqApplication.class, config.toString(),
                ConfigOverride.config("store.uri", TestRedis::sharedUri),
                ConfigOverride.config("deadNotices.pollInterval", "100ms"));
        service.before();
        log.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(log);
    }
}
