package io.delayq.service.ui;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.DirectStore;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Reply;
import io.delayq.testing.RequiresProgram;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

import java.util.List;

import static io.delayq.service.ui.Dashboard.testId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The circuits page in a real (headless) Chromium against the whole service on the test store: a receiver answering
 * 503 opens its origin's circuit, and the page shows the circuit as the store holds it (state, failures in a row,
 * held jobs, next probe) with the origin's configured rate limit beside it; the configured limits are listed, also
 * that of an origin the store has no circuit of; the topic page shows the topic's own rate limit. The origins are
 * {@code http://localhost:<port>} so that the configuration keys have no dot (a {@code ConfigOverride} path splits at
 * dots).
 */
@Tag("slow") // a headless Chromium, and a circuit opened by real failed deliveries
@ExtendWith(DropwizardExtensionsSupport.class)
@RequiresProgram(value = HeadlessChromium.CHROMIUM, debianPackage = "chromium")
@RequiresProgram(value = HeadlessChromium.CHROMEDRIVER, debianPackage = "chromium-driver")
class CircuitsBrowserTest {
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    static final String ORIGIN = "http://localhost:" + RECEIVER.port();
    /** Limited by the configuration, and never called: the store keeps no circuit of it. */
    static final String QUIET_ORIGIN = "http://localhost:9";
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("delivery.breaker.enabled", "true"),
            ConfigOverride.config("delivery.originRateLimits." + ORIGIN + ".perSecond", "5"),
            ConfigOverride.config("delivery.originRateLimits." + ORIGIN + ".burst", "2"),
            ConfigOverride.config("delivery.originRateLimits." + QUIET_ORIGIN + ".perSecond", "0.5"));

    @RegisterExtension
    static final HeadlessChromium.PerClass BROWSER = new HeadlessChromium.PerClass();

    @BeforeAll
    static void answerAsTheTestsNeed() {
        RECEIVER.answer(r -> Reply.status(503));
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @Test
    void anOpenCircuitShowsAsTheStoreHoldsItWithItsOriginsRateLimit() throws Exception {
        String base = "http://127.0.0.1:" + APP.getLocalPort();
        Api admin = new Api(base, TestApps.ADMIN);
        String topic = TestApps.topic();
        // a probe only every 10 minutes: the circuit stays open while the page is read
        Answer put = admin.put("/v1/topics/" + topic, """
                {"callback": {"url": "%s/down/%s"}, "maxAttempts": 10,
                 "backoff": {"type": "schedule", "delays": ["200ms"]}, "rateLimit": {"perSecond": 3, "burst": 1},
                 "breaker": {"failureThreshold": 2, "probeInterval": "10m", "maxProbeInterval": "10m"}}"""
                .formatted(ORIGIN, topic));
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
        for (int i = 0; i < 3; i++) {
            Answer job = admin.post("/v1/topics/" + topic + "/jobs", "{\"id\": \"j" + i + "\", \"payload\": {}}");
            assertThat(job.status()).as(job.toString()).isEqualTo(201);
        }

        Dashboard ui = new Dashboard(BROWSER.driver(), base);
        ui.signIn("viewer-token"); // the page is a viewer's as much as an admin's
        ui.go("/circuits");
        By row = By.cssSelector("tr[data-origin='" + ORIGIN + "'][data-testid='circuit-row']");
        try (DirectStore direct = DirectStore.of(APP)) {
            // the held count settles once every job has been held; the page must show what the store holds then
            ui.awaitThat("the open circuit of " + ORIGIN + " with the store's held count", d -> {
                List<WebElement> rows = d.findElements(row);
                OriginCircuit stored = direct.store().circuitBreakers().circuit(ORIGIN);
                return !rows.isEmpty() && stored.isOpen() && stored.heldJobs() == 3
                        && "OPEN".equals(rows.get(0).getAttribute("data-state"))
                        && "3".equals(rows.get(0).findElement(testId("circuit-held")).getText());
            });
            OriginCircuit stored = direct.store().circuitBreakers().circuit(ORIGIN);
            WebElement shown = BROWSER.driver().findElement(row);
            assertThat(shown.findElement(testId("circuit-state")).getText()).isEqualTo("OPEN");
            assertThat(shown.findElement(testId("circuit-failures")).getText())
                    .isEqualTo(Integer.toString(stored.consecutiveFailures()));
            assertThat(stored.consecutiveFailures()).isGreaterThanOrEqualTo(2);
            assertThat(shown.findElement(testId("circuit-next-probe")).getText()).contains("every 600,000 ms");
            assertThat(shown.findElement(testId("circuit-rate-limit")).getText()).isEqualTo("5/s, burst 2");
        }

        // every configured limit, the quiet origin's too (burst left out: a tenth of a second's worth, at least 1)
        ui.awaitThat("both configured origin limits", d -> ui.all("origin-rate-limit-row").size() == 2);
        assertThat(limitRow(ORIGIN).getText()).contains(ORIGIN, "5", "2");
        assertThat(limitRow(QUIET_ORIGIN).getText()).contains(QUIET_ORIGIN, "0.5", "1");
        assertThat(BROWSER.driver().findElements(By.cssSelector("tr[data-origin='" + QUIET_ORIGIN + "'][data-testid='circuit-row']")))
                .as("no circuit is kept for an origin never called").isEmpty();

        // the API the page reads says the same
        JsonNode page = admin.as("viewer-token").get("/v1/admin/circuits?limit=1000").json();
        JsonNode circuit = null;
        for (JsonNode c : page.path("items")) {
            if (c.path("origin").asText().equals(ORIGIN)) {
                circuit = c;
            }
        }
        assertThat(circuit).as("%s", page).isNotNull();
        assertThat(circuit.path("rateLimit").path("perSecond").asDouble()).isEqualTo(5.0);
        assertThat(circuit.path("rateLimit").path("burst").asInt()).isEqualTo(2);
        assertThat(page.path("originRateLimits")).hasSize(2);

        // the topic page shows the topic's own limit
        ui.go("/topics/" + topic);
        ui.awaitThat("the topic's rate limit", d -> "3/s, burst 1".equals(ui.text("settings-rateLimit")));
    }

    private static WebElement limitRow(String origin) {
        return BROWSER.driver().findElement(By.cssSelector("tr[data-origin='" + origin + "'][data-testid='origin-rate-limit-row']"));
    }
}
