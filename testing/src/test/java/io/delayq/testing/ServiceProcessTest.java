package io.delayq.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A real child JVM ({@link FakeApplication}) started, killed and started again by {@link ServiceProcess}. */
class ServiceProcessTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private String get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void startsWithItsConfigurationAndOverridesIsKilledAndStartsAgainOnTheSamePort(@TempDir Path dir) throws Exception {
        try (ServiceProcess process = ServiceProcess.mainClass(FakeApplication.class.getName(),
                        ServiceProcess.testClasspath())
                .directory(dir).configYaml("store:\n  type: fake\n").extraYaml("tenants: []\n")
                .override("greeting", "hello").heap("64m").build()) {
            assertThat(process.exitDescription()).isEqualTo("never started");
            process.start();
            assertThat(process.lastStartMs()).isPositive();
            assertThat(get(process.baseUrl() + "/openapi.yaml"))
                    .contains("store:\n  type: fake\n").contains("tenants: []").contains("greeting=hello");
            long firstPid = process.pid();

            process.kill();
            assertThat(process.isAlive()).isFalse();
            assertThat(process.pid()).isEqualTo(-1);
            assertThatThrownBy(() -> get(process.baseUrl() + "/openapi.yaml")).isInstanceOf(ConnectException.class);

            process.start();
            assertThat(process.pid()).isPositive().isNotEqualTo(firstPid);
            assertThat(get(process.baseUrl() + "/openapi.yaml")).contains("greeting=hello");
            assertThat(process.starts()).isEqualTo(2);
            String log = Files.readString(process.log());
            assertThat(log).contains("=== start #1").contains("=== start #2")
                    .contains("fake application listening on " + process.port());
        }
    }

    @Test
    void aChildThatExitsAtStartFailsTheStartWithItsLog(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("c.yml"), "x: 1\n");
        try (ServiceProcess process = ServiceProcess.mainClass("io.delayq.testing.NoSuchClass",
                ServiceProcess.testClasspath()).directory(dir).config(config).build()) {
            assertThatThrownBy(process::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("exited at start").hasMessageContaining("NoSuchClass");
            assertThat(process.config()).isEqualTo(config);
        }
    }
}
