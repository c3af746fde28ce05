package io.delayq.service.breaker;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.breaker.Origins;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, finding 5, through the API: {@code GET /v1/admin/circuits} is paged ({@code limit}, {@code cursor},
 * {@code {items, nextCursor}}) and refuses a bad {@code limit} or {@code cursor} with a 400 naming it; beyond
 * {@code delivery.breaker.maxOrigins} (1 here) a new origin's failures are not tracked: it gets no circuit, and
 * {@code delayq.breaker.untracked-origins} counts them. The store's side (expiry of idle closed circuits, the bound,
 * the pages, the notable circuits the snapshot reads) is {@code CircuitBreakersContract}. Runs on both stores.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class CircuitBoundsTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("delivery.breaker.enabled", "true"),
            ConfigOverride.config("delivery.breaker.maxOrigins", "1"));

    @Test
    void aBadLimitOrCursorIsA400NamingIt() {
        Api admin = TestApps.api(APP).as(TestApps.ADMIN);
        for (String query : List.of("limit=0", "limit=1001", "limit=-5")) {
            Answer bad = admin.get("/v1/admin/circuits?" + query);
            assertThat(bad.status()).as(query + ": " + bad).isEqualTo(400);
            assertThat(bad.contentType()).startsWith("application/problem+json");
            assertThat(bad.json().path("fields").toString()).as(bad.toString()).contains("limit");
        }
        for (String cursor : List.of("not*base64", "Zm9v%3D", "x".repeat(3_000))) {
            Answer bad = admin.get("/v1/admin/circuits?cursor=" + cursor);
            assertThat(bad.status()).as(cursor + ": " + bad).isEqualTo(400);
            assertThat(bad.json().path("fields").toString()).as(bad.toString()).contains("cursor");
        }
        Answer notANumber = admin.get("/v1/admin/circuits?limit=ten");
        assertThat(notANumber.status()).isEqualTo(400);
        assertThat(notANumber.json().path("parameter").asText()).isEqualTo("limit");
    }

    @Test
    void beyondMaxOriginsANewOriginIsNotTrackedAndTheListingIsPaged() throws IOException {
        Api api = TestApps.api(APP);
        Api admin = api.as(TestApps.ADMIN);
        List<String> origins = new ArrayList<>();
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            String url = "http://127.0.0.1:" + closedPort() + "/refused";
            origins.add(Origins.of(url));
            String topic = TestApps.topic();
            Answer put = admin.put("/v1/topics/" + topic, """
                    {"callback": {"url": "%s"}, "maxAttempts": 1,
                     "breaker": {"enabled": true, "failureThreshold": 1}}""".formatted(url));
            assertThat(put.status()).as(put.toString()).isEqualTo(200);
            Answer created = api.post("/v1/topics/" + topic + "/jobs", "{\"id\": \"j\", \"payload\": {}}");
            assertThat(created.status()).as(created.toString()).isEqualTo(201);
            jobs.add("/v1/topics/" + topic + "/jobs/j");
        }
        Await.until("both jobs failed", Duration.ofSeconds(30), () -> jobs.stream()
                .allMatch(j -> "DEAD".equals(api.get(j).json().path("state").asText())));
        Api adminPort = new Api("http://127.0.0.1:" + APP.getAdminPort(), null);
        Await.until("an origin beyond maxOrigins is counted untracked", Duration.ofSeconds(10), () -> adminPort
                .get("/metrics").json().path("meters").path("delayq.breaker.untracked-origins").path("count")
                .asLong() >= 1);

        Set<String> all = new HashSet<>();
        admin.get("/v1/admin/circuits?limit=1000").json().path("items").forEach(c -> all.add(c.path("origin").asText()));
        assertThat(origins.stream().filter(all::contains).count()).as("of %s in %s", origins, all).isLessThan(2);

        List<String> paged = new ArrayList<>();
        String cursor = null;
        do {
            Answer page = admin.get("/v1/admin/circuits?limit=1" + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(page.status()).as(page.toString()).isEqualTo(200);
            JsonNode items = page.json().path("items");
            assertThat(items.size()).isLessThanOrEqualTo(1);
            items.forEach(c -> paged.add(c.path("origin").asText()));
            cursor = page.json().path("nextCursor").isTextual() ? page.json().path("nextCursor").asText() : null;
        } while (cursor != null && paged.size() <= all.size());
        assertThat(paged).isSorted().doesNotHaveDuplicates();
        assertThat(new HashSet<>(paged)).isEqualTo(all);
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
