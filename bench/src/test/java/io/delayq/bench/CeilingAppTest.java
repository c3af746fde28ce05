package io.delayq.bench;

import io.delayq.testing.ServiceProcess;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * W4's HTTP enqueue ceiling, started as the bench starts it (a JVM of its own from the bench's classpath, the
 * service's server settings), takes W4's single-job POST: 201 with the job read back, and the payload in one Redis key.
 */
class CeilingAppTest {

    @Test
    void theCeilingStoresEachPostedJobWithOneSet() throws Exception {
        try (BenchRedis redis = BenchRedis.start(true);
             ServiceProcess ceiling = BenchServices.ceiling(redis.uri())) {
            ceiling.start();
            try (KeepAliveHttp producer = new KeepAliveHttp("127.0.0.1", ceiling.port(), BenchServices.TOKEN)) {
                String job = ServiceWorkloads.jobJson(7, "\"delayMs\":1000", "http://127.0.0.1:65535/", null);
                KeepAliveHttp.Response answer = producer.send("POST", "/v1/topics/w4/jobs", job);
                assertThat(answer.status()).isEqualTo(201);
                assertThat(answer.body()).contains("\"id\":\"7\"", "\"delayMs\":1000", "\"url\":\"http://127.0.0.1:65535/\"");
                assertThat(producer.send("POST", "/v1/topics/w4/jobs", "{\"delayMs\":1}").status())
                        .as("no id or payload").isEqualTo(422);
            }
            try (var client = RedisClient.builder().fromURI(URI.create(redis.uri())).build()) {
                assertThat(client.get("ceiling:w4:7")).isEqualTo(Payloads.job(7));
                assertThat(client.dbSize()).isEqualTo(1);
            }
        }
    }
}
