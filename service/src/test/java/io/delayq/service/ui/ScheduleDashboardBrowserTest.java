package io.delayq.service.ui;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.WebElement;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The topic page's list of recurring schedules in a real (headless) Chromium: each schedule with its cron, zone,
 * next fire and last fire (a link to its job), paused ones marked; a consumer's token is told it may not read them
 * instead of the page failing.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ScheduleDashboardBrowserTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    @RegisterExtension
    static final HeadlessChromium.PerClass BROWSER = new HeadlessChromium.PerClass();



    @Test
    void theTopicPageListsItsSchedulesWithTheirNextAndLastFires() {
        String base = "http://127.0.0.1:" + APP.getLocalPort();
        Api producer = new Api(base, TestApps.PRODUCER);
        String topic = TestApps.topic();
        assertThat(producer.put("/v1/topics/" + topic + "/schedules/nightly", "{\"cron\":\"0 0 2 * * *\","
                + "\"timeZone\":\"Europe/Berlin\",\"paused\":true,\"job\":{\"payload\":{}}}").status()).isEqualTo(201);
        assertThat(producer.put("/v1/topics/" + topic + "/schedules/tick", "{\"cron\":\"* * * * * *\","
                + "\"job\":{\"payload\":{}}}").status()).isEqualTo(201);

        Dashboard ui = new Dashboard(BROWSER.driver(), base);
        ui.signIn("viewer-token");
        ui.go("/topics/" + topic);
        ui.awaitThat("two schedules, tick with a fire", d -> {
            List<WebElement> rows = ui.all("schedule-row");
            return rows.size() == 2 && rows.get(1).getText().contains(":tick:");
        });
        List<WebElement> rows = ui.all("schedule-row");
        assertThat(rows.get(0).getText()).contains("nightly", "paused", "0 0 2 * * *", "Europe/Berlin", "skip", "—");
        assertThat(rows.get(1).getText()).contains("tick", "* * * * * *", "UTC").doesNotContain("paused");
        assertThat(rows.get(1).findElement(org.openqa.selenium.By.tagName("a")).getAttribute("href"))
                .contains("#/jobs/" + topic + "/%3Atick%3A");

        ui.signIn(TestApps.CONSUMER);
        ui.go("/topics/" + topic);
        ui.awaitThat("the consumer's note", d -> ui.visible("schedules-error"));
        assertThat(ui.text("schedules-error")).contains("producer, admin or viewer role");
    }
}
