package io.delayq.service.jobs;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code delivery.allowPrivateNetworks: false}, a callback host whose name resolves to a refused address is
 * refused when the job is scheduled, not only at each delivery; a name that does not resolve yet is accepted (its
 * address cannot be known until delivery, where the engine checks it again).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class CallbackAddressAtSchedulingTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("delivery.allowPrivateNetworks", "false"));

    /** The machine's own name: it resolves without DNS, usually to a loopback or private address. */
    private static String privateName() throws UnknownHostException {
        String name = InetAddress.getLocalHost().getHostName();
        boolean allPrivate = Arrays.stream(InetAddress.getAllByName(name))
                .allMatch(a -> a.isLoopbackAddress() || a.isSiteLocalAddress());
        Assumptions.assumeTrue(allPrivate && !name.equals("localhost") && !name.endsWith(".localhost"),
                "this machine's name " + name + " resolves to a loopback or private address");
        return name;
    }

    @Test
    void aNameThatResolvesToARefusedAddressIsRefusedAtScheduling() throws UnknownHostException {
        String name = privateName();
        String topic = TestApps.topic();
        Api api = TestApps.api(APP);
        Answer answer = api.post("/v1/topics/" + topic + "/jobs",
                "{\"id\":\"x\",\"payload\":{},\"callback\":{\"url\":\"http://" + name + ":9/hook\"}}");
        assertThat(answer.status()).as(answer.toString()).isEqualTo(422);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).contains(name, "allowPrivateNetworks");
        assertThat(api.get("/v1/topics/" + topic + "/jobs/x").status()).isEqualTo(404);

        Answer settings = api.as(TestApps.ADMIN).put("/v1/topics/" + topic,
                "{\"callback\":{\"url\":\"http://" + name + ":9/hook\"}}");
        assertThat(settings.status()).as(settings.toString()).isEqualTo(422);
        assertThat(settings.detail()).contains(name);
    }

    @Test
    void aNameThatDoesNotResolveYetIsAccepted() {
        String topic = TestApps.topic();
        Answer answer = TestApps.api(APP).post("/v1/topics/" + topic + "/jobs",
                "{\"id\":\"later\",\"delayMs\":600000,\"payload\":{},"
                        + "\"callback\":{\"url\":\"http://not-yet-in-dns.invalid/hook\"}}");
        assertThat(answer.status()).as(answer.toString()).isEqualTo(201);
    }
}
