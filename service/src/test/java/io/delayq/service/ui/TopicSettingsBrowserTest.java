package io.delayq.service.ui;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.TopicSettings;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.DirectStore;
import io.delayq.service.support.TestApps;
import io.delayq.testing.RequiresProgram;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The topic page's settings form in a real (headless) Chromium against the whole service on the test store: an admin
 * changes the rate limit and noRetryStatuses (and moves the callback, leaving its masked header as the mask) and the
 * API and the store then hold exactly that, the stored header value kept; a bad value shows the API's own message
 * next to the form and changes nothing; a viewer sees the settings and no form.
 */
@Tag("slow") // a headless Chromium over the dashboard
@ExtendWith(DropwizardExtensionsSupport.class)
@RequiresProgram(value = HeadlessChromium.CHROMIUM, debianPackage = "chromium")
@RequiresProgram(value = HeadlessChromium.CHROMEDRIVER, debianPackage = "chromium-driver")
class TopicSettingsBrowserTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    @RegisterExtension
    static final HeadlessChromium.PerClass BROWSER = new HeadlessChromium.PerClass();



    @Test
    void anAdminChangesTheRateLimitAndNoRetryStatusesAndABadValueChangesNothing() throws Exception {
        String base = "http://127.0.0.1:" + APP.getLocalPort();
        Api admin = new Api(base, TestApps.ADMIN);
        String topic = TestApps.topic();
        String secret = "s3cret-" + topic;
        Answer put = admin.put("/v1/topics/" + topic, """
                {"callback": {"url": "http://127.0.0.1:9/hook-a", "headers": {"X-Key": "%s"}}, "maxAttempts": 7}"""
                .formatted(secret));
        assertThat(put.status()).as(put.toString()).isEqualTo(200);

        Dashboard ui = new Dashboard(BROWSER.driver(), base);
        ui.signIn(TestApps.ADMIN);
        ui.go("/topics/" + topic);
        ui.awaitThat("the form filled with the topic's settings", d -> "7".equals(value(ui, "setting-maxAttempts")));
        assertThat(value(ui, "setting-callback-url")).isEqualTo("http://127.0.0.1:9/hook-a");
        assertThat(value(ui, "setting-callback-headers")).as("header values are write-only").isEqualTo("X-Key: ********");
        assertThat(BROWSER.driver().getPageSource()).doesNotContain(secret);

        type(ui, "setting-rateLimit-perSecond", "20");
        type(ui, "setting-rateLimit-burst", "4");
        type(ui, "setting-noRetryStatuses", "400, 404, 410");
        type(ui, "setting-callback-url", "http://127.0.0.1:9/hook-b"); // the header stays the mask: kept
        ui.click("settings-save");
        ui.awaitThat("the saved settings shown", d -> ui.text("settings-saved").startsWith("Saved")
                && "20/s, burst 4".equals(ui.text("settings-rateLimit")));
        assertThat(ui.text("settings-saved")).isEqualTo("Saved: callback, noRetryStatuses, rateLimit.");
        assertThat(ui.text("settings-noRetryStatuses")).isEqualTo("400, 404, 410");
        assertThat(ui.visible("settings-error")).isFalse();

        JsonNode settings = admin.get("/v1/topics/" + topic).json().path("settings");
        assertThat(settings.path("rateLimit").path("perSecond").asDouble()).isEqualTo(20.0);
        assertThat(settings.path("rateLimit").path("burst").asInt()).isEqualTo(4);
        assertThat(settings.path("noRetryStatuses").toString()).isEqualTo("[400,404,410]");
        assertThat(settings.path("maxAttempts").asInt()).as("a field the form did not change").isEqualTo(7);
        try (DirectStore direct = DirectStore.of(APP)) {
            TopicSettings stored = direct.store().settings(topic);
            assertThat(stored.callback().url()).isEqualTo("http://127.0.0.1:9/hook-b");
            assertThat(stored.callback().headers()).as("the mask kept the stored value")
                    .containsExactlyEntriesOf(Map.of("X-Key", secret));
            assertThat(stored.rateLimit().perSecond()).isEqualTo(20.0);
            assertThat(stored.noRetryStatuses()).containsExactly(400, 404, 410);
        }

        // a bad value: the API's own message beside the form, and nothing changes
        String refused = admin.put("/v1/topics/" + topic, "{\"rateLimit\": {\"perSecond\": -1, \"burst\": 4}}").detail();
        assertThat(refused).contains("rateLimit.perSecond");
        type(ui, "setting-rateLimit-perSecond", "-1");
        type(ui, "setting-noRetryStatuses", "500");
        ui.click("settings-save");
        ui.awaitThat("the API's refusal next to the form", d -> ui.visible("settings-error"));
        assertThat(ui.text("settings-error")).isEqualTo(refused);
        assertThat(value(ui, "setting-rateLimit-perSecond")).as("what was typed stays").isEqualTo("-1");
        JsonNode after = admin.get("/v1/topics/" + topic).json().path("settings");
        assertThat(after.path("rateLimit").path("perSecond").asDouble()).isEqualTo(20.0);
        assertThat(after.path("noRetryStatuses").toString()).as("nothing of the refused change").isEqualTo("[400,404,410]");

        // a viewer reads the settings and gets no form
        ui.signIn("viewer-token");
        ui.go("/topics/" + topic);
        ui.awaitThat("the viewer's settings", d -> "20/s, burst 4".equals(ui.text("settings-rateLimit")));
        assertThat(ui.all("settings-form")).as("no form for a viewer").isEmpty();
        assertThat(ui.text("settings-read-only")).contains("admin role");
    }

    private static String value(Dashboard ui, String testId) {
        return ui.find(testId).getAttribute("value");
    }

    /** Replaces the input's text as a person would (select all, type), so the form knows it was edited. */
    private static void type(Dashboard ui, String testId, String text) {
        WebElement input = ui.find(testId);
        input.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
        input.sendKeys(text);
        ui.awaitThat(testId + " holds " + text, d -> text.equals(input.getAttribute("value")));
    }
}
