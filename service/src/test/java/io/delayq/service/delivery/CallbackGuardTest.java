package io.delayq.service.delivery;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CallbackGuardTest {
    private final CallbackGuard permissive = CallbackGuard.permissive();

    @Test
    void acceptsPublicAndLocalReceiversByDefault() {
        assertThat(permissive.check("http://127.0.0.1:8080/hook").getPort()).isEqualTo(8080);
        assertThat(permissive.check("https://example.com/hooks?x=1")).isNotNull();
        assertThat(permissive.check("http://10.1.2.3/x")).isNotNull();
        assertThat(permissive.check("http://[::1]:9000/x")).isNotNull();
        assertThat(permissive.check("http://localhost:9000/x")).isNotNull();
        assertThat(permissive.resolve("127.0.0.1").get(0).isLoopbackAddress()).isTrue();
    }

    @Test
    void refusesMetadataAndLinkLocalAlways() {
        assertThatThrownBy(() -> permissive.check("http://169.254.169.254/latest/meta-data"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cloud metadata")
                .hasMessageContaining("allowedCallbackHosts");
        assertThatThrownBy(() -> permissive.check("http://169.254.10.1/"))
                .hasMessageContaining("link-local");
        assertThatThrownBy(() -> permissive.check("http://[fe80::1]/"))
                .hasMessageContaining("link-local");
        assertThatThrownBy(() -> permissive.check("http://[fd00:ec2::254]/"))
                .hasMessageContaining("cloud metadata");
        assertThatThrownBy(() -> permissive.check("http://metadata.google.internal/computeMetadata/v1/"))
                .hasMessageContaining("cloud metadata");
        assertThatThrownBy(() -> permissive.check("http://[::ffff:169.254.169.254]/"))
                .hasMessageContaining("metadata");
        assertThatThrownBy(() -> permissive.check("http://0.0.0.0:8080/"))
                .hasMessageContaining("not a unicast address");
    }

    @Test
    void refusesAmbiguousNumericHosts() {
        assertThatThrownBy(() -> permissive.check("http://2852039166/")).hasMessageContaining("ambiguous");
        assertThatThrownBy(() -> permissive.check("http://0xA9FEA9FE/")).hasMessageContaining("ambiguous");
        assertThatThrownBy(() -> permissive.check("http://0251.0376.0251.0376/")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesOtherSchemesAndUserInfo() {
        assertThatThrownBy(() -> permissive.check("ftp://example.com/x")).hasMessageContaining("http://")
                .hasMessageContaining("'ftp'");
        assertThatThrownBy(() -> permissive.check("file:///etc/passwd")).hasMessageContaining("http://");
        assertThatThrownBy(() -> permissive.check("/relative")).hasMessageContaining("absolute");
        assertThatThrownBy(() -> permissive.check("http://user:pw@example.com/")).hasMessageContaining("user info");
        assertThatThrownBy(() -> permissive.check("http:// bad")).hasMessageContaining("not a valid URL");
        assertThatThrownBy(() -> permissive.check(null)).hasMessageContaining("required");
    }

    @Test
    void privateNetworksCanBeForbidden() {
        var strict = new CallbackGuard(List.of(), false);
        assertThatThrownBy(() -> strict.check("http://127.0.0.1/x")).hasMessageContaining("allowPrivateNetworks");
        assertThatThrownBy(() -> strict.check("http://192.168.1.1/x")).hasMessageContaining("private");
        assertThatThrownBy(() -> strict.check("http://localhost/x")).hasMessageContaining("private");
        assertThatThrownBy(() -> strict.resolve("localhost")).hasMessageContaining("private");
        assertThat(strict.check("http://93.184.216.34/x")).isNotNull();
    }

    @Test
    void allowListRestrictsAndIsTheOnlyWayToForbiddenRanges() {
        var guard = new CallbackGuard(List.of("hooks.example.com", "*.corp.example", "10.20.0.0/16", "169.254.169.254"),
                false);
        assertThat(guard.check("https://hooks.example.com/x")).isNotNull();
        assertThat(guard.check("https://a.b.corp.example/x")).isNotNull();
        assertThat(guard.check("http://10.20.3.4/x")).isNotNull();
        assertThat(guard.check("http://169.254.169.254/x")).isNotNull();
        assertThatThrownBy(() -> guard.check("https://example.com/x")).hasMessageContaining("not in delivery.allowedCallbackHosts");
        assertThatThrownBy(() -> guard.check("http://10.21.0.1/x")).hasMessageContaining("not in delivery.allowedCallbackHosts");
        assertThatThrownBy(() -> guard.check("http://127.0.0.1/x")).hasMessageContaining("not in delivery.allowedCallbackHosts");
        assertThatThrownBy(() -> guard.check("http://corp.example.evil.com/x")).hasMessageContaining("not in");
    }

    @Test
    void malformedAllowListEntriesAreRefused() {
        assertThatThrownBy(() -> new CallbackGuard(List.of("10.0.0.0/33"), true)).hasMessageContaining("prefix");
        assertThatThrownBy(() -> new CallbackGuard(List.of(" "), true)).hasMessageContaining("empty entry");
    }

    @Test
    void resolvingChecksEveryAddressOfAName() {
        var strict = new CallbackGuard(List.of(), false);
        // localhost resolves to loopback: refused when private networks are not allowed, whatever the name says
        assertThatThrownBy(() -> strict.resolve("localhost.")).isInstanceOf(IllegalArgumentException.class);
        assertThat(permissive.resolve("localhost").get(0).isLoopbackAddress()).isTrue();
    }

    @Test
    void refusesHeadersThatCannotBeSent() {
        CallbackGuard.checkHeaders(java.util.Map.of("Authorization", "Bearer x", "X-Tenant", "a"));
        assertThatThrownBy(() -> CallbackGuard.checkHeaders(java.util.Map.of("Host", "evil"))).hasMessageContaining("'Host'");
        assertThatThrownBy(() -> CallbackGuard.checkHeaders(java.util.Map.of("Delayq-Id", "x"))).hasMessageContaining("set by delayq");
        assertThatThrownBy(() -> CallbackGuard.checkHeaders(java.util.Map.of("X-A", "a\r\nX-B: b"))).hasMessageContaining("line breaks");
        assertThatThrownBy(() -> CallbackGuard.checkHeaders(java.util.Map.of("bad name", "a"))).hasMessageContaining("not a valid");
    }

    @Test
    void theServicesOwnPortsOnThisHostAreRefusedWhateverTheAllowList() {
        ServicePorts own = new ServicePorts();
        own.add(18081);
        var listed = new CallbackGuard(List.of("127.0.0.1", "localhost", "*.localhost"), true, own);
        assertThatThrownBy(() -> listed.check("http://127.0.0.1:18081/tasks/gc")).hasMessageContaining("delayq's own");
        assertThatThrownBy(() -> listed.check("http://localhost:18081/tasks/gc")).hasMessageContaining("delayq's own");
        assertThatThrownBy(() -> listed.resolve("localhost", 18081)).hasMessageContaining("delayq's own");
        assertThat(listed.check("http://127.0.0.1:18082/hook")).as("another port").isNotNull();
        assertThat(listed.resolve("localhost")).as("no port: the scheduling-time name check").isNotEmpty();
        own.add(80);
        assertThatThrownBy(() -> listed.check("http://localhost/x")).as("the scheme's default port")
                .hasMessageContaining("port 80");
    }
}
